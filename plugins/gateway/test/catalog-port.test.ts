import { expect } from 'chai';
import { ManualClock } from '../../../kernel/clock.ts';
import { startGatewayKernel } from './helpers.ts';
import { startUpstream, type Upstream } from '../../../test/helpers/upstream.ts';

describe('gatewayRoutes and outboundFetch ports (as other plugins use them)', () => {
  let g: Awaited<ReturnType<typeof startGatewayKernel>>;
  let up: Upstream;
  const clock = new ManualClock();
  before(async () => {
    up = await startUpstream();
    g = await startGatewayKernel({ clock });
  });
  after(async () => {
    await g.t.close();
    await up.close();
  });
  const catalog = () => g.t.kernel.resolve('gatewayRoutes');
  const outbound = () => g.t.kernel.resolve('outboundFetch');

  it('outboundFetch.refusal: the policy on a URL without connecting (link-local, metadata, not http, credentials)', async () => {
    const before = up.requests.length;
    expect(await outbound().refusal(`${up.url}/x`), 'loopback outside production').to.equal(undefined);
    expect(await outbound().refusal('http://93.184.216.34/push')).to.equal(undefined);
    expect(await outbound().refusal('http://169.254.10.1/x')).to.match(/link-local/);
    expect(await outbound().refusal('http://169.254.169.254/latest')).to.match(/metadata|link-local/);
    expect(await outbound().refusal('ftp://example.test/x')).to.match(/http/);
    expect(await outbound().refusal('https://user:pw@example.test/x')).to.match(/Credentials/);
    expect(up.requests.length, 'nothing was called').to.equal(before);
  });

  it('findRoute: the route of that endpoint, undefined for another endpoint, unknown or malformed ids', async () => {
    const ep = await g.createEndpoint({ baseUrl: up.url });
    const other = await g.createEndpoint({ baseUrl: up.url });
    const route = await g.createRoute(ep.id, 'POST', '/hooks/{hookId}/fire');
    expect(await catalog().findRoute(ep.id, route.id)).to.deep.equal({
      endpointId: ep.id,
      endpointName: ep.name,
      routeId: route.id,
      method: 'POST',
      pathTemplate: '/hooks/{hookId}/fire',
      pathParams: ['hookId'],
    });
    expect(await catalog().findRoute(other.id, route.id)).to.equal(undefined);
    expect(await catalog().findRoute(ep.id, '00000000-0000-4000-8000-000000000000')).to.equal(undefined);
    expect(await catalog().findRoute('nope', 'nope')).to.equal(undefined);
    // Inside a caller's transaction.
    await g.t.db.transaction(async (trx) =>
      expect(await catalog().findRoute(ep.id, route.id, trx)).to.not.equal(undefined),
    );
  });

  it('matchRoute: by endpoint id or name; literal segments win over parameters; decoded values', async () => {
    const ep = await g.createEndpoint({ baseUrl: up.url });
    const byId = await g.createRoute(ep.id, 'GET', '/users/{id}');
    const me = await g.createRoute(ep.id, 'GET', '/users/me');
    const file = await g.createRoute(ep.id, 'GET', '/files/{name}.json');
    expect(await catalog().matchRoute(ep.name, 'get', '/users/42')).to.deep.include({ params: { id: '42' } });
    expect((await catalog().matchRoute(ep.id, 'GET', '/users/42'))!.route.routeId).to.equal(byId.id);
    expect((await catalog().matchRoute(ep.name, 'GET', '/users/me'))!.route.routeId).to.equal(me.id);
    expect(await catalog().matchRoute(ep.name, 'GET', '/users/a%20b')).to.deep.include({ params: { id: 'a b' } });
    expect(await catalog().matchRoute(ep.name, 'GET', '/files/report.json')).to.deep.include({
      params: { name: 'report' },
    });
    expect((await catalog().matchRoute(ep.name, 'GET', '/files/report.json'))!.route.routeId).to.equal(file.id);
    expect(await catalog().matchRoute(ep.name, 'POST', '/users/42')).to.equal(undefined);
    expect(await catalog().matchRoute(ep.name, 'GET', '/users/42/posts')).to.equal(undefined);
    expect(await catalog().matchRoute('no-such-endpoint', 'GET', '/users/42')).to.equal(undefined);
  });

  it('sees a route another process created since its cached copy was loaded', async () => {
    const ep = await g.createEndpoint({ baseUrl: up.url });
    await g.createRoute(ep.id, 'GET', '/a');
    expect(await catalog().matchRoute(ep.name, 'GET', '/a')).to.not.equal(undefined);
    // Written straight to the table, as the gateway process would while this one (core-api) holds a copy.
    const [row] = await g.t
      .db('gateway_routes')
      .insert({ endpoint_id: ep.id, method: 'GET', path: '/b/{x}' })
      .returning('id');
    expect((await catalog().findRoute(ep.id, row.id))!.pathTemplate).to.equal('/b/{x}');
    const [row2] = await g.t
      .db('gateway_routes')
      .insert({ endpoint_id: ep.id, method: 'GET', path: '/c' })
      .returning('id');
    clock.advance(1001);
    expect((await catalog().matchRoute(ep.name, 'GET', '/c'))!.route.routeId).to.equal(row2.id);
  });

  it("callRoute: fills the template, sends a JSON or raw body, caps the timeout by the endpoint's; errors as documented", async () => {
    const ep = await g.createEndpoint({ baseUrl: up.url, auth: { type: 'bearer', token: 'tkn' }, timeoutMs: 300 });
    const route = await g.createRoute(ep.id, 'PUT', '/docs/{id}');
    up.handle((req, res) => {
      if (req.url.startsWith('/docs/slow')) return void setTimeout(() => res.end(), 2000);
      res.setHeader('content-type', 'text/plain');
      res.end(`${req.method} ${req.url} ${req.headers['content-type']} ${req.body}`);
    });
    const json = await catalog().callRoute(ep.id, route.id, {
      params: { id: 'x y' },
      body: { a: 1 },
      headers: { authorization: 'Bearer client', 'x-cms-key': 'wbk_1' },
    });
    expect(json.status).to.equal(200);
    expect(json.body.toString()).to.equal('PUT /docs/x%20y application/json {"a":1}');
    expect(json.truncated).to.equal(false);
    expect(up.requests.at(-1)!.headers.authorization).to.equal('Bearer tkn');
    expect(up.requests.at(-1)!.headers['x-cms-key']).to.equal(undefined);
    const raw = await catalog().callRoute(ep.id, route.id, {
      params: { id: '1' },
      body: 'a=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(raw.body.toString()).to.equal('PUT /docs/1 application/x-www-form-urlencoded a=1');
    const slow = await catalog()
      .callRoute(ep.id, route.id, { params: { id: 'slow' }, timeoutMs: 60_000 })
      .catch((e) => e);
    expect(slow).to.include({ statusCode: 504, code: 'UPSTREAM_TIMEOUT' });
    const missing = await catalog()
      .callRoute(ep.id, '00000000-0000-4000-8000-000000000000', {})
      .catch((e) => e);
    expect(missing).to.include({ statusCode: 404, code: 'ROUTE_NOT_FOUND' });
  });

  it('outboundFetch: a plain call without credentials, redirects followed, body capped', async () => {
    up.handle((req, res) => {
      if (req.url === '/.well-known/openid-configuration') {
        res.statusCode = 301;
        res.setHeader('location', '/moved');
        return void res.end();
      }
      res.end(JSON.stringify({ issuer: 'https://idp.example', auth: req.headers.authorization ?? null }));
    });
    const answer = await outbound().fetch(`${up.url}/.well-known/openid-configuration`);
    expect(answer.status).to.equal(200);
    expect(JSON.parse(answer.body.toString())).to.deep.equal({ issuer: 'https://idp.example', auth: null });
    // maxRedirects: 0 (a call with its own credential header): the 3xx is the answer, nothing followed.
    const seen: string[] = [];
    up.handle((req, res) => {
      seen.push(req.url ?? '');
      if (req.url === '/.well-known/openid-configuration') {
        res.statusCode = 301;
        res.setHeader('location', '/moved');
        return void res.end();
      }
      res.end(JSON.stringify({ issuer: 'https://idp.example', auth: null }));
    });
    const unfollowed = await outbound().fetch(`${up.url}/.well-known/openid-configuration`, { maxRedirects: 0 });
    expect(unfollowed.status).to.equal(301);
    expect(unfollowed.headers.location).to.equal('/moved');
    expect(seen).to.deep.equal(['/.well-known/openid-configuration']);
    const capped = await outbound().fetch(`${up.url}/moved`, { maxBytes: 10 });
    expect(capped.body.length).to.equal(10);
    expect(capped.truncated).to.equal(true);
    expect(
      await outbound()
        .fetch('file:///etc/passwd')
        .catch((e) => e),
    ).to.include({ statusCode: 400 });
  });

  it('the core-api process builds the port without the gateway routes', async () => {
    const { startTestKernel } = await import('../../../test/helpers/kernel.ts');
    const core = await startTestKernel({ service: 'core-api' });
    try {
      expect(core.kernel.plugins.map((p) => p.id)).to.include('gateway');
      expect(await core.kernel.resolve('gatewayRoutes').findRoute('x', 'y')).to.equal(undefined);
      const admin = await core.admin();
      expect(
        (await core.inject({ method: 'GET', url: '/api/v1/gateway/endpoints', headers: { cookie: admin.cookie } }))
          .statusCode,
      ).to.equal(404);
    } finally {
      await core.close();
    }
  });
});
