import path from 'node:path';
import { png } from '../test/helpers/images.ts';
import type { TestKernel, TestUser } from '../test/helpers/kernel.ts';
import { PIMCORE_FIXTURES } from '../test/helpers/mariadb.ts';

/** The records the screenshots' screens open (`RECORD_SCREENS` in admin-screenshots.ts). */
export interface DemoRecords {
  roleId: string;
  classId: string;
  objectId: string;
  endpointId: string;
  clientId: string;
  subscriptionId: string;
  websiteId: string;
  migrationSourceId: string;
}

/** Fails loudly: a screenshot of an empty screen because a seed call was refused helps nobody. */
async function created<T>(answer: Promise<{ statusCode: number; body: string; json(): unknown }>, what: string) {
  const res = await answer;
  if (res.statusCode >= 300) throw new Error(`demo data: ${what} answered ${res.statusCode}: ${res.body}`);
  return res.json() as T;
}

const ARTICLES = [
  ['Spring opening hours', 'news', true],
  ['New recycling points in the old town', 'news', true],
  ['Library summer reading programme', 'culture', true],
  ['Road works on Station Street', 'traffic', true],
  ['Open-air cinema: the programme', 'culture', false],
  ['Council meeting minutes, March', 'politics', true],
  ['Cycle lanes: results of the survey', 'traffic', false],
  ['Christmas market stalls: apply now', 'news', false],
  ['Museum night with free entry', 'culture', true],
  ['Drinking water quality report', 'news', true],
  ['Winter service: who clears which street', 'traffic', true],
  ['Budget draft for next year', 'politics', false],
] as const;

/**
 * Demo content of a small town's website a year in: staff and roles, an article class with a
 * component and a workflow, a dozen articles, a few images, a gateway endpoint with routes, an API
 * client with a key and an event subscription. Everything goes through the API as `admin`, so the
 * audit log and the home screen's counts fill up the way they would.
 */
export async function seedDemoData(t: TestKernel, admin: TestUser, baseUrl: string): Promise<DemoRecords> {
  const post = <T>(url: string, body: unknown, what = url) => created<T>(t.call('POST', url, admin, body), what);

  for (const [name, description, permissions] of [
    ['proofreaders', 'Read and comment on drafts', ['objects:read', 'data_objects:read']],
    ['integrators', 'Manage the gateway and API clients', ['gateway:manage', 'objects:read']],
  ] as const)
    await post('/auth/roles', { name, description, permissions: [...permissions] });
  for (const [email, displayName] of [
    ['grace@example.com', 'Grace Hopper'],
    ['alan@example.com', 'Alan Turing'],
    ['edsger@example.com', 'Edsger Dijkstra'],
    ['barbara@example.com', 'Barbara Liskov'],
  ])
    await post('/auth/users', { email, displayName, roles: ['editor'], password: 'A-long-passw0rd-here' });
  const roles = (await t.call('GET', '/auth/roles', admin)).json() as { roles: { id: string; name: string }[] };

  await post('/data-components', {
    name: 'seo',
    label: 'Search engines',
    fields: [
      { name: 'metaTitle', type: 'text', label: 'Title in results' },
      { name: 'metaDescription', type: 'text', label: 'Description in results' },
    ],
  });
  const article = await post<{ id: string; name: string }>('/data-classes', {
    name: 'article',
    label: 'Article',
    fields: [
      { name: 'title', type: 'text', required: true, localized: true },
      { name: 'slug', type: 'slug', unique: true },
      { name: 'category', type: 'select', options: ['news', 'culture', 'traffic', 'politics'] },
      { name: 'summary', type: 'text', localized: true },
      { name: 'body', type: 'markdown', localized: true },
      { name: 'publishedOn', type: 'date', label: 'Published on' },
      { name: 'featured', type: 'boolean' },
      { name: 'seo', type: 'component', component: 'seo' },
    ],
  });
  await created(
    t.call('PUT', `/data-classes/${article.id}/workflow`, admin, {
      initialPlace: 'draft',
      places: [{ name: 'draft' }, { name: 'review', label: 'In review' }, { name: 'approved' }],
      transitions: [
        { name: 'submit', label: 'Submit for review', from: ['draft'], to: 'review', permissions: [] },
        { name: 'approve', label: 'Approve', from: ['review'], to: 'approved', permissions: [] },
      ],
    }),
    'workflow',
  );
  await post('/data-classes', {
    name: 'event',
    label: 'Event',
    fields: [
      { name: 'name', type: 'text', required: true },
      { name: 'startsAt', type: 'datetime', label: 'Starts at' },
      { name: 'venue', type: 'text' },
    ],
  });
  let objectId = '';
  for (const [i, [title, category, published]] of ARTICLES.entries()) {
    const slug = title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '');
    const object = await post<{ id: string }>('/data-objects', {
      classId: article.id,
      key: slug,
      published,
      attributes: {
        title,
        slug,
        category,
        summary: `${title}: what changes and for whom.`,
        body: `## ${title}\n\nThe town administration informs residents about ${title.toLowerCase()}.`,
        publishedOn: `2026-0${1 + (i % 9)}-1${i % 10}`,
        featured: i % 4 === 0,
      },
    });
    if (i === 0) objectId = object.id;
  }

  await post('/api/v1/dam/folders', { path: 'press' });
  for (const [name, width, height] of [
    ['town-hall.png', 1200, 800],
    ['market-square.png', 900, 600],
    ['logo.png', 400, 400],
  ] as const) {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await png(width, height))], { type: 'image/png' }), name);
    const res = await fetch(`${baseUrl}/api/v1/dam/upload?folder=press`, {
      method: 'POST',
      headers: { cookie: admin.cookie },
      body: form,
    });
    if (!res.ok) throw new Error(`demo data: uploading ${name} answered ${res.status}: ${await res.text()}`);
  }

  const endpoint = await post<{ id: string }>('/api/v1/gateway/endpoints', {
    name: 'weather',
    baseUrl: 'https://api.weather.example.com',
  });
  await post(`/api/v1/gateway/endpoints/${endpoint.id}/routes`, { method: 'GET', path: '/forecast' });
  const hooks = await post<{ id: string }>('/api/v1/gateway/endpoints', {
    name: 'search-indexer',
    baseUrl: 'https://search.example.com',
  });
  const route = await post<{ id: string }>(`/api/v1/gateway/endpoints/${hooks.id}/routes`, {
    method: 'POST',
    path: '/cms-events',
  });
  const client = await post<{ id: string }>('/api/v1/gateway/clients', {
    name: 'Mobile app',
    authMode: 'key',
    scopes: ['data:read:article', 'gateway:call:weather'],
  });
  await post('/api/v1/gateway/clients', { name: 'Intranet', authMode: 'key', scopes: ['data:read:event'] });
  const subscription = await post<{ id: string }>('/object-event-subscriptions', {
    name: 'Search indexer',
    events: ['object.published', 'object.unpublished', 'object.deleted'],
    endpointId: hooks.id,
    routeId: route.id,
  });
  const website = await post<{ id: string }>('/cms-one/websites', {
    name: 'Town website',
    rootPath: '/town',
    locales: ['en', 'de'],
  });
  // A Pimcore source with the test fixture's class folder: its class mapping needs no database.
  const migrationSource = await post<{ id: string }>('/migration-sources', {
    name: 'Old Pimcore site',
    kind: 'pimcore',
    connection: { host: 'pimcore-db.example.internal', port: 3306, database: 'pimcore', user: 'pimcore' },
    classPath: path.join(PIMCORE_FIXTURES, 'var', 'classes'),
  });

  return {
    roleId: roles.roles.find((r) => r.name === 'editor')?.id ?? roles.roles[0].id,
    classId: article.id,
    objectId,
    endpointId: endpoint.id,
    clientId: client.id,
    subscriptionId: subscription.id,
    websiteId: website.id,
    migrationSourceId: migrationSource.id,
  };
}
