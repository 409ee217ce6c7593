import { expect } from 'chai';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { PROJECT_ROOT } from '../../kernel/loader.ts';
import { eventually, startTestKernel, type TestKernel } from '../helpers/kernel.ts';

/** What a local server saw: method, URL, headers and body of every request. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

async function listen(
  handler: (seen: Seen, res: import('node:http').ServerResponse) => void,
): Promise<{ server: Server; url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req
      .setEncoding('utf8')
      .on('data', (c) => (body += c))
      .on('end', () => {
        const s = { method: req.method!, url: req.url!, headers: req.headers, body };
        seen.push(s);
        handler(s, res);
      });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** The README's receiver check (plugins/object-events/README.md), as a function of one request. */
function readmeReceiverAccepts(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const ts = String(headers['x-cms-timestamp'] ?? '');
  const given = Buffer.from(String(headers['x-cms-signature'] ?? ''));
  const wanted = Buffer.from('sha256=' + createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex'));
  const fresh = Math.abs(Date.now() / 1000 - Number(ts)) <= 300;
  return fresh && given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256(key, id.timestamp.body); a plain secret is its UTF-8 bytes. */
function standardWebhooksAccepts(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const id = String(headers['webhook-id'] ?? '');
  const ts = String(headers['webhook-timestamp'] ?? '');
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret);
  const wanted = 'v1,' + createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64');
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .includes(wanted);
}

const UPSTREAM_KEY = 'upstream-appid-0123456789';
const SECRET_NAME = 'OBJECT_EVENTS_SECRET_CHAIN_E2E';
const SECRET = 'chain-e2e-signing-secret';

/**
 * The whole gateway chain, walked with the real plugins of the all-in-one process: gateway,
 * client-api, data, object-events + event-delivery, content. Local node:http servers play the
 * third-party API and the operator's event receiver.
 */
describe('gateway chain: presets, OpenAPI, client keys, data reads, passthrough, signed events, page bindings', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let cookie: string;
  let upstream: Awaited<ReturnType<typeof listen>>;
  let receiver: Awaited<ReturnType<typeof listen>>;
  let weather: { id: string; name: string };
  let bookshop: { id: string };
  let key: string;
  const articles: { published: string[]; drafts: string[] } = { published: [], drafts: [] };
  let classId: string;

  const call = async (
    method: string,
    url: string,
    opts: { body?: unknown; headers?: Record<string, string>; cookie?: string } = {},
  ) => {
    const res = await t.inject({
      method: method as 'GET',
      url,
      headers: { ...(opts.cookie ? { cookie: opts.cookie } : {}), ...opts.headers },
      ...(opts.body !== undefined ? { payload: opts.body as object } : {}),
    });
    return res;
  };
  const admin = (method: string, url: string, body?: unknown) => call(method, url, { body, cookie });
  const client = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    call(method, url, { body, headers: { 'x-cms-key': key, ...headers } });

  before(async () => {
    upstream = await listen((s, res) => {
      if (s.url.startsWith('/data/2.5/weather')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            name: 'Berlin',
            main: { temp: 281.5, humidity: 80 },
            weather: [{ main: 'Clouds' }],
            appidSeen: new URL(s.url, 'http://x').searchParams.get('appid') === UPSTREAM_KEY,
          }),
        );
      } else if (s.url.startsWith('/books')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify([
            { isbn: '9780000000001', title: 'Chain', price: 12 },
            { isbn: '9780000000002', title: 'Links', price: 9 },
          ]),
        );
      } else res.writeHead(404, { 'content-type': 'text/plain' }).end('no such upstream path');
    });
    receiver = await listen((s, res) =>
      res.writeHead(readmeReceiverAccepts(SECRET, s.headers, s.body) ? 204 : 401).end(),
    );
    process.env[SECRET_NAME] = SECRET;
    t = await startTestKernel({ service: 'all', jobs: true });
    cookie = (await t.admin()).cookie;
  });

  after(async () => {
    await t?.close();
    upstream?.server.close();
    receiver?.server.close();
    delete process.env[SECRET_NAME];
  });

  it('(a) registers an endpoint from a preset (base URL overridden) and imports an OpenAPI file', async () => {
    const presets = await admin('GET', '/api/v1/gateway/presets');
    expect(presets.statusCode).to.equal(200);
    const created = await admin('POST', '/api/v1/gateway/endpoints', {
      name: 'weather',
      preset: 'openweathermap',
      baseUrl: upstream.url,
      auth: { type: 'apiKeyQuery', key: UPSTREAM_KEY },
    });
    expect(created.statusCode, created.body).to.equal(201);
    weather = created.json();
    expect(JSON.stringify(weather)).not.to.contain(UPSTREAM_KEY);
    expect(created.json()).to.deep.include({ presetId: 'openweathermap', baseUrl: upstream.url });
    expect(created.json().auth).to.deep.include({ type: 'apiKeyQuery', paramName: 'appid', key: { set: true } });
    const routes = (await admin('GET', `/api/v1/gateway/endpoints/${weather.id}/routes`)).json();
    expect(routes.items.map((r: { path: string }) => r.path)).to.include('/data/2.5/weather');

    const shop = await admin('POST', '/api/v1/gateway/endpoints', {
      name: 'bookshop',
      baseUrl: upstream.url,
      auth: { type: 'bearer', token: 'bookshop-token-1' },
    });
    expect(shop.statusCode, shop.body).to.equal(201);
    bookshop = shop.json();
    const spec = readFileSync(
      path.join(PROJECT_ROOT, 'plugins/gateway/test/fixtures/bookshop-openapi-3.1.yaml'),
      'utf8',
    );
    const imported = await admin('POST', `/api/v1/gateway/endpoints/${bookshop.id}/import-openapi`, { spec });
    expect(imported.statusCode, imported.body).to.equal(200);
    expect(imported.json().created).to.have.length.greaterThan(0);
  });

  it('(b) creates a key client with data:read:Article and gateway call scopes', async () => {
    const res = await admin('POST', '/api/v1/gateway/clients', {
      name: 'chain-app',
      authMode: 'key',
      scopes: ['data:read:Article', 'gateway:call:weather', 'gateway:call:bookshop'],
    });
    expect(res.statusCode, res.body).to.equal(201);
    key = res.json().key;
    expect(key).to.match(/^wbk_/);
    const me = await client('GET', '/client/v1/me');
    expect(me.statusCode, me.body).to.equal(200);
  });

  it('(c) reads published articles with the key; a draft is 404 Not found', async () => {
    const cls = await admin('POST', '/data-classes', {
      name: 'Article',
      fields: [{ name: 'title', type: 'text', required: true }],
    });
    expect(cls.statusCode, cls.body).to.equal(201);
    classId = cls.json().id;
    for (const [i, published] of [true, true, false].entries()) {
      const o = await admin('POST', '/data-objects', {
        className: 'Article',
        key: `a${i}`,
        published,
        attributes: { title: `Article ${i}` },
      });
      expect(o.statusCode, o.body).to.equal(201);
      (published ? articles.published : articles.drafts).push(o.json().id);
    }
    const list = await client('GET', '/client/v1/data/Article?limit=10');
    expect(list.statusCode, list.body).to.equal(200);
    const ids = JSON.stringify(list.json());
    for (const id of articles.published) expect(ids).to.contain(id);
    expect(ids).not.to.contain(articles.drafts[0]);
    const one = await client('GET', `/client/v1/data/Article/${articles.published[0]}`);
    expect(one.statusCode, one.body).to.equal(200);
    const draft = await client('GET', `/client/v1/data/Article/${articles.drafts[0]}`);
    expect(draft.statusCode).to.equal(404);
    expect(draft.body).to.equal('Not found');
  });

  it('(d) calls the upstream through /client/v1/gateway: endpoint credentials in, client credentials out', async () => {
    const before = upstream.seen.length;
    const res = await client('GET', '/client/v1/gateway/weather/data/2.5/weather?q=Berlin', undefined, {
      authorization: `Bearer ${key}`,
      cookie: 'cms_session=not-for-upstream',
    });
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.json()).to.include({ name: 'Berlin', appidSeen: true });
    const seen = upstream.seen[before];
    expect(seen.url).to.contain('q=Berlin');
    expect(JSON.stringify(seen.headers)).not.to.contain(key);
    expect(seen.headers).not.to.have.property('cookie');
    expect(seen.headers).not.to.have.property('authorization');
    expect(seen.headers).not.to.have.property('x-cms-key');

    // An imported OpenAPI route, with the endpoint's bearer token and never the client's key.
    const books = await client('GET', '/client/v1/gateway/bookshop/books');
    expect(books.statusCode, books.body).to.equal(200);
    expect(books.json()).to.have.length(2);
    const last = upstream.seen.at(-1)!;
    expect(last.headers.authorization).to.equal('Bearer bookshop-token-1');
    expect(JSON.stringify(last.headers)).not.to.contain(key);

    // A JSON body on an imported POST route arrives as JSON with its content type.
    const order = await client('POST', '/client/v1/gateway/bookshop/books', { isbn: '9780000000003', title: 'New' });
    expect(order.statusCode, order.body).to.equal(200);
    const posted = upstream.seen.at(-1)!;
    expect(posted.method).to.equal('POST');
    expect(posted.headers['content-type']).to.match(/^application\/json/);
    expect(JSON.parse(posted.body)).to.deep.equal({ isbn: '9780000000003', title: 'New' });

    // A path no route matches answers like any unknown thing of the client API.
    const unknown = await client('GET', '/client/v1/gateway/weather/no/such/route');
    expect(unknown.statusCode).to.equal(404);
  });

  it('(e) delivers signed object events to the receiver (README check and Standard Webhooks)', async () => {
    const hooks = await admin('POST', '/api/v1/gateway/endpoints', {
      name: 'receiver',
      baseUrl: receiver.url,
      auth: { type: 'none' },
    });
    expect(hooks.statusCode, hooks.body).to.equal(201);
    const route = await admin('POST', `/api/v1/gateway/endpoints/${hooks.json().id}/routes`, {
      method: 'POST',
      path: '/cms-events',
    });
    expect(route.statusCode, route.body).to.equal(201);
    // The real catalog's route refs decide: a GET route or an unknown route is refused, naming routeId.
    const weatherRoutes = (await admin('GET', `/api/v1/gateway/endpoints/${weather.id}/routes`)).json().items;
    const onGet = await admin('POST', '/object-event-subscriptions', {
      name: 'on-get',
      events: ['object.created'],
      endpointId: weather.id,
      routeId: weatherRoutes[0].id,
    });
    expect(onGet.statusCode).to.equal(400);
    expect(onGet.json()).to.include({ code: 'ROUTE_METHOD', field: 'routeId' });
    const elsewhere = await admin('POST', '/object-event-subscriptions', {
      name: 'elsewhere',
      events: ['object.created'],
      endpointId: hooks.json().id,
      routeId: weatherRoutes[0].id,
    });
    expect(elsewhere.statusCode).to.equal(400);
    expect(elsewhere.json()).to.include({ code: 'GATEWAY_ROUTE_NOT_FOUND', field: 'routeId' });

    const sub = await admin('POST', '/object-event-subscriptions', {
      name: 'chain',
      events: ['object.created', 'object.updated'],
      endpointId: hooks.json().id,
      routeId: route.json().id,
      classId,
      signingSecretRef: SECRET_NAME,
    });
    expect(sub.statusCode, sub.body).to.equal(201);

    const o = await admin('POST', '/data-objects', {
      className: 'Article',
      key: 'evented',
      published: false,
      attributes: { title: 'Evented' },
    });
    expect(o.statusCode, o.body).to.equal(201);
    const delivery = await eventually(() => receiver.seen.find((s) => s.body.includes(o.json().id)) ?? false, {
      timeoutMs: 20_000,
      intervalMs: 50,
      what: 'a delivery for the new object',
    });
    expect(delivery!.method).to.equal('POST');
    expect(delivery!.url).to.equal('/cms-events');
    expect(readmeReceiverAccepts(SECRET, delivery!.headers, delivery!.body), 'README receiver check').to.equal(true);
    expect(standardWebhooksAccepts(SECRET, delivery!.headers, delivery!.body), 'Standard Webhooks check').to.equal(
      true,
    );
    expect(standardWebhooksAccepts('other-secret', delivery!.headers, delivery!.body)).to.equal(false);
    const event = JSON.parse(delivery!.body);
    expect(event).to.include({ type: 'object.created' });
    expect(event.object.id).to.equal(o.json().id);

    await eventually(
      async () => {
        const rows: { status: string }[] = (
          await admin('GET', `/object-event-subscriptions/${sub.json().id}/deliveries`)
        ).json().deliveries;
        expect(rows.map((r) => r.status)).to.deep.equal(['delivered']);
      },
      { timeoutMs: 10_000, intervalMs: 50 },
    );
  });

  it('(f) a published page binding resolves through the gateway with the site key (a draft one only in a preview); a wrong key is refused', async () => {
    const site = await admin('POST', '/cms-one/websites', { name: 'Chain', rootPath: '/chain', locales: ['en'] });
    expect(site.statusCode, site.body).to.equal(201);
    const websiteId = site.json().id;
    const route = (await admin('GET', `/api/v1/gateway/endpoints/${weather.id}/routes`))
      .json()
      .items.find((r: { path: string }) => r.path === '/data/2.5/weather');
    const page = await admin('POST', '/cms-one/pages', {
      websiteId,
      locale: 'en',
      path: '/weather',
      title: 'Weather',
      content: {
        type: 'section',
        children: [
          {
            type: 'div',
            props: {
              binding: {
                endpointId: weather.id,
                routeId: route.id,
                parameters: { query: { q: 'Berlin' } },
                resultFilter: { pick: ['name', 'main'], rename: { name: 'city' } },
              },
            },
          },
        ],
      },
    });
    expect(page.statusCode, page.body).to.equal(201);
    const bindingId = page.json().content.children[0].props.gatewayBindingId;
    expect(bindingId, 'gatewayBindingId assigned by the save').to.be.a('string');

    const regen = await admin('POST', `/cms-one/websites/${websiteId}/gateway-api-key/regenerate`);
    expect(regen.statusCode, regen.body).to.equal(200);
    const siteKey = regen.json().siteKey;

    // A draft page's binding is not live: anonymous callers get the unknown-binding 404, site key or
    // not; a preview with a session that may read pages reaches it.
    const draft = await call('POST', '/api/v1/gateway/resolve', {
      body: { gatewayBindingId: bindingId },
      headers: { 'x-cms-site-key': siteKey },
    });
    expect(draft.statusCode, draft.body).to.equal(404);
    expect(draft.json().code).to.equal('BINDING_NOT_FOUND');
    const preview = await admin('POST', '/api/v1/gateway/preview/resolve', { gatewayBindingId: bindingId });
    expect(preview.statusCode, preview.body).to.equal(200);
    expect(preview.json().data).to.deep.equal({ city: 'Berlin', main: { temp: 281.5, humidity: 80 } });
    const published = await admin('PATCH', `/cms-one/pages/${page.json().id}`, { published: true });
    expect(published.statusCode, published.body).to.equal(200);

    const resolved = await call('POST', '/api/v1/gateway/resolve', {
      body: { gatewayBindingId: bindingId },
      headers: { 'x-cms-site-key': siteKey },
    });
    expect(resolved.statusCode, resolved.body).to.equal(200);
    expect(resolved.json().data).to.deep.equal({ city: 'Berlin', main: { temp: 281.5, humidity: 80 } });

    const wrong = await call('POST', '/api/v1/gateway/resolve', {
      body: { gatewayBindingId: bindingId },
      headers: { 'x-cms-site-key': 'wsk_wrong' },
    });
    expect(wrong.statusCode).to.equal(401);
    expect(wrong.json().code).to.equal('SITE_KEY_INVALID');
    const missing = await call('POST', '/api/v1/gateway/resolve', { body: { gatewayBindingId: bindingId } });
    expect(missing.statusCode).to.equal(401);

    // A binding to a route the catalog does not have is refused when the page is saved.
    const bad = await admin('POST', '/cms-one/pages', {
      websiteId,
      locale: 'en',
      path: '/broken',
      title: 'Broken',
      content: { type: 'div', props: { binding: { endpointId: weather.id, routeId: bookshop.id } } },
    });
    expect(bad.statusCode, bad.body).to.equal(400);
    expect(bad.json().field).to.be.a('string');

    // Once its route is deleted, the binding answers 404 BINDING_NOT_FOUND (not the kernel's unknown-path code).
    expect((await admin('DELETE', `/api/v1/gateway/routes/${route.id}`)).statusCode).to.equal(204);
    const gone = await call('POST', '/api/v1/gateway/resolve', {
      body: { gatewayBindingId: bindingId },
      headers: { 'x-cms-site-key': siteKey },
    });
    expect(gone.statusCode, gone.body).to.equal(404);
    expect(gone.json().code).to.equal('BINDING_NOT_FOUND');
  });
});
