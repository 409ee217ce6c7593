import { readdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { eventually, startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { pdf } from '../../../test/helpers/media.ts';
import { rawZip } from '../../../test/helpers/zip.ts';

const PLUGINS = ['data', 'content', 'assets', 'bundles'];

/** What an import could have written. */
async function footprint(t: TestKernel) {
  const count = async (table: string) => Number((await t.db(table).count('* as n'))[0].n);
  return {
    websites: await count('content_websites'),
    pages: await count('content_pages'),
    paths: await count('content_website_paths'),
    themes: await count('content_themes'),
    layouts: await count('content_layouts'),
    classes: await count('data_classes'),
    objects: await count('data_objects'),
    audit: await count('audit_log'),
    assets: await count('assets'),
  };
}

let sites = 0;
/** A small valid manifest on a root path of its own, with `extra` sections or website fields. */
function manifest(extra: Record<string, unknown> = {}, website: Record<string, unknown> = {}) {
  sites++;
  return {
    version: 2,
    website: { name: 'Hostile', rootPath: `/hostile${sites}`, locales: ['en'], ...website },
    ...extra,
  };
}

const page = (fields: Record<string, unknown> = {}) => ({
  path: '/a',
  title: 'A',
  locale: 'en',
  content: { type: 'section', children: [] },
  ...fields,
});

describe('bundles: hostile manifests are refused with a 4xx naming the problem, nothing written', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: TestUser;

  before(async () => {
    t = await startTestKernel({ plugins: PLUGINS, ownDataDir: true });
    admin = await t.admin();
  });
  after(() => t?.close());

  const importJson = (body: unknown, query = '') => t.call('POST', `/cms-one/websites/import${query}`, admin, body);
  const importZip = (zip: Buffer, query = '') =>
    t.inject({
      method: 'POST',
      url: `/cms-one/websites/import${query}`,
      payload: zip,
      headers: { 'content-type': 'application/zip', cookie: admin.cookie },
    });

  /** Dry run and apply both answer `status` with `field`; nothing is written by either. */
  async function refusedBoth(send: (query: string) => Promise<{ statusCode: number; body: string }>, field: string) {
    const before = await footprint(t);
    for (const query of ['?dryRun=1', '']) {
      const res = await send(query);
      expect(res.statusCode, `${query}: ${res.body}`).to.equal(400);
      expect(JSON.parse(res.body).field, res.body).to.equal(field);
    }
    expect(await footprint(t)).to.deep.equal(before);
  }

  it('fields of the wrong shape (text locales, a number for a title, an unknown page kind) are refused', async () => {
    await refusedBoth((q) => importJson(manifest({}, { locales: 'en' }), q), 'website.locales');
    await refusedBoth((q) => importJson(manifest({ pages: [page({ title: 5 })] }), q), 'pages.0.title');
    await refusedBoth((q) => importJson(manifest({ pages: [page({ locale: undefined })] }), q), 'pages.0.locale');
    await refusedBoth((q) => importJson(manifest({ pages: [page({ kind: 'evil' })] }), q), 'pages.0.kind');
    await refusedBoth(
      (q) => importJson(manifest({ websitePaths: [{ label: 'x', position: -1 }] }), q),
      'websitePaths.0.position',
    );
    await refusedBoth(
      (q) => importJson(manifest({ websitePaths: [{ label: 'x', path: 'javascript:alert(1)' }] }), q),
      'websitePaths.0.path',
    );
  });

  it('a layout region the layout editor would refuse (script link) and odd theme values are refused', async () => {
    const region = { type: 'a', props: { href: 'javascript:alert(document.cookie)' }, children: [] };
    await refusedBoth(
      (q) => importJson(manifest({ websiteTemplates: [{ name: 'L', regions: { header: region } }] }), q),
      'websiteTemplates.0.regions.header.props.href',
    );
    await refusedBoth(
      (q) => importJson(manifest({ websiteTemplates: [{ name: 'L', regions: { sidebar: null } }] }), q),
      'websiteTemplates.0.regions.sidebar',
    );
    await refusedBoth((q) => importJson(manifest({ themes: [{ name: 'T', colors: 5 }] }), q), 'themes.0.colors');
  });

  it('data objects and classes of the wrong shape are refused (a number for a key was a 500)', async () => {
    const cls = { id: 'c1', name: 'Thing', label: 'Thing', fields: [{ name: 'title', type: 'text' }] };
    const object = (fields: Record<string, unknown>) => ({
      id: 'o1',
      className: 'Thing',
      key: 'a',
      attributes: {},
      ...fields,
    });
    await refusedBoth(
      (q) => importJson(manifest({ dataClasses: [cls], dataObjects: [object({ key: 5 })] }), q),
      'dataObjects.0.key',
    );
    await refusedBoth(
      (q) => importJson(manifest({ dataClasses: [cls], dataObjects: [object({ parentId: {} })] }), q),
      'dataObjects.0.parentId',
    );
    await refusedBoth(
      (q) => importJson(manifest({ dataClasses: [{ ...cls, viewConfig: 5 }] }), q),
      'dataClasses.0.viewConfig',
    );
  });

  it('a root path an editor could not choose (upper case, several segments, a host route) is refused', async () => {
    for (const rootPath of ['/Shop', '/a/b', '/auth'])
      await refusedBoth((q) => importJson(manifest({}, { rootPath }), q), 'rootPath');
  });

  it('theme styles that break out of the style element are refused as the theme editor refuses them', async () => {
    const themes = [{ name: 'T', customStyles: 'body{}</style><script>alert(1)</script>' }];
    await refusedBoth((q) => importJson(manifest({ themes }), q), 'themes.0.customStyles');
  });

  it('NUL and lone surrogates inside a zipped manifest are refused naming the field', async () => {
    for (const bad of ['\\u0000', '\\ud800']) {
      sites++;
      const text = `{"version":2,"website":{"name":"S","rootPath":"/zip${sites}","locales":["en"]},"pages":[{"path":"/a","title":"x${bad}","locale":"en","content":{"type":"section"}}]}`;
      await refusedBoth((q) => importZip(rawZip([{ name: 'bundle.json', data: text }]), q), 'pages.0.title');
    }
  });

  it('records the database refuses answer 4xx naming the record (never 500) and roll everything back', async () => {
    const before = await footprint(t);
    const doubled = manifest({ pages: [page({ title: 'One' }), page({ title: 'Two' })] });
    const report = await importJson(doubled, '?dryRun=1');
    expect(report.statusCode, report.body).to.equal(200);
    expect(report.json().actions).to.deep.include({
      kind: 'page',
      name: '/a',
      action: 'conflict',
      reason: 'two pages of the bundle have the path /a in en',
    });
    const twice = await importJson(doubled);
    expect(twice.statusCode, twice.body).to.equal(409);
    expect(twice.json().code).to.equal('IMPORT_CONFLICT');
    expect(twice.json().message).to.contain('page /a');

    const dangling = await importJson(manifest({ websitePaths: [{ label: 'Menu', pageId: 'not-an-id' }] }));
    expect(dangling.statusCode, dangling.body).to.equal(400);
    expect(dangling.json().field).to.equal('websitePaths.0.pageId');
    expect(await footprint(t)).to.deep.equal(before);
  });

  it('two imports of one root path at once: one applies, the other answers 409, one website', async () => {
    const body = manifest({ pages: [page()] });
    // Two users: one user runs one import at a time (BUNDLE_IMPORTS_PER_USER).
    const other = await t.createUser({ roles: ['admin'] });
    const answers = await Promise.all([importJson(body), t.call('POST', '/cms-one/websites/import', other, body)]);
    expect(answers.map((a) => a.statusCode).sort(), answers.map((a) => a.body).join('\n')).to.deep.equal([201, 409]);
    const rows = await t.db('content_websites').where({ root_path: body.website.rootPath });
    expect(rows).to.have.length(1);
  });

  it('ids of another website (a menu entry naming its page or its entry as parent) and ids used twice are refused', async () => {
    const ok = async (url: string, body: unknown) => {
      const res = await t.call('POST', url, admin, body);
      expect(res.statusCode, `${url}: ${res.body}`).to.equal(201);
      return res.json() as { id: string };
    };
    const other = await ok('/cms-one/websites', { name: 'Other', rootPath: '/other-site', locales: ['en'] });
    const theirPage = await ok('/cms-one/pages', {
      websiteId: other.id,
      locale: 'en',
      path: '/secret',
      title: 'Their page',
      content: { type: 'section', children: [] },
    });
    const theirEntry = await ok('/cms-one/website-paths', { websiteId: other.id, label: 'Theirs', path: '/x' });
    await refusedBoth(
      (q) => importJson(manifest({ websitePaths: [{ id: 'm1', label: 'Menu', pageId: theirPage.id }] }), q),
      'websitePaths.0.pageId',
    );
    await refusedBoth(
      (q) =>
        importJson(manifest({ websitePaths: [{ id: 'm1', label: 'Menu', parentId: theirEntry.id, path: '/y' }] }), q),
      'websitePaths.0.parentId',
    );
    expect(await t.db('content_website_paths').where({ parent_id: theirEntry.id })).to.have.length(0);
    const cycle = [
      { id: 'm1', label: 'One', parentId: 'm2', path: '/1' },
      { id: 'm2', label: 'Two', parentId: 'm1', path: '/2' },
    ];
    await refusedBoth((q) => importJson(manifest({ websitePaths: cycle }), q), 'websitePaths.0.parentId');
    // One id for two records of the bundle: the dry run passed, the apply failed on it.
    await refusedBoth(
      (q) => importJson(manifest({ pages: [page({ id: 'p1' }), page({ id: 'p1', path: '/b' })] }), q),
      'pages.1.id',
    );
    await refusedBoth(
      (q) => importJson(manifest({ pages: [page({ id: 'x1' })], snippets: [{ id: 'x1', name: 'S' }] }), q),
      'snippets.0.id',
    );
    // Ids of the bundle's own records still follow: a menu entry of a page of the bundle, below another entry.
    const own = manifest({
      pages: [page({ id: 'p1' })],
      websitePaths: [
        { id: 'm1', label: 'Top', path: '/top' },
        { id: 'm2', label: 'A', pageId: 'p1', parentId: 'm1' },
      ],
    });
    const applied = await importJson(own);
    expect(applied.statusCode, applied.body).to.equal(201);
    const site = await t.db('content_websites').where({ root_path: own.website.rootPath }).first();
    const entries = await t.db('content_website_paths').where({ website_id: site.id });
    const a = entries.find((e) => e.label === 'A');
    expect(a.parent_id).to.equal(entries.find((e) => e.label === 'Top').id);
    const [p1] = await t.db('content_pages').where({ website_id: site.id });
    expect(a.page_id).to.equal(p1.id);
  });

  it('an upload cut off mid-body leaves no temporary file and writes nothing', async () => {
    const before = await footprint(t);
    const address = new URL(await t.kernel.listen(0));
    const socket = net.connect(Number(address.port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST /cms-one/websites/import HTTP/1.1\r\nHost: localhost\r\ncontent-type: application/zip\r\n` +
        `content-length: 10000000\r\ncookie: ${admin.cookie}\r\n\r\n`,
    );
    const tmp = path.join(t.dataDir, 'tmp', 'bundles');
    const spooled = async () => (await readdir(tmp).catch(() => [] as string[])).length;
    // Some of the body arrives (the spool file exists), then the connection drops.
    socket.write(Buffer.alloc(256 * 1024, 1));
    await eventually(async () => (await spooled()) > 0);
    socket.destroy();
    await eventually(async () => (await spooled()) === 0);
    expect(await footprint(t)).to.deep.equal(before);
  });

  it('two assets of the bundle at one path (the dry run said "upload" twice, the apply kept one) are refused', async () => {
    const body = manifest({
      assets: [
        { id: 'a1', path: 'twice/b.pdf', file: 'assets/0001-b.pdf' },
        { id: 'a2', path: 'twice/b.pdf', file: 'assets/0002-b.pdf' },
      ],
    });
    const zip = rawZip([
      { name: 'bundle.json', data: JSON.stringify(body) },
      { name: 'assets/0001-b.pdf', data: pdf() },
      { name: 'assets/0002-b.pdf', data: Buffer.concat([pdf(), Buffer.from('%other')]) },
    ]);
    await refusedBoth((q) => importZip(zip, q), 'assets.1.path');
    await refusedBoth((q) => importJson({ ...body, version: 1 }, q), 'assets.1.path');
  });
});
