import { expect } from 'chai';
import { ManualClock } from '../../../kernel/clock.ts';
import { startGatewayKernel } from './helpers.ts';
import { startUpstream, type Upstream } from '../../../test/helpers/upstream.ts';

type G = Awaited<ReturnType<typeof startGatewayKernel>>;

describe('gateway calls: credentials per auth type, OAuth2 tokens, rate limit, timeout', () => {
  let g: G;
  let up: Upstream;
  const clock = new ManualClock();
  let tokenRequests = 0;
  /** Tokens the upstream refuses (as after a revocation). */
  const revoked = new Set<string>();

  before(async () => {
    up = await startUpstream();
    g = await startGatewayKernel({ clock });
  });
  beforeEach(() => {
    up.requests.length = 0;
    tokenRequests = 0;
    revoked.clear();
    // /token issues numbered tokens valid 600 s (slowly, so concurrent callers overlap); /slow never answers in time.
    up.handle((req, res) => {
      if (req.url === '/token') {
        tokenRequests++;
        const n = tokenRequests;
        setTimeout(() => {
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ access_token: `tok-${n}`, token_type: 'Bearer', expires_in: 600 }));
        }, 50);
        return;
      }
      if (req.url.startsWith('/slow')) return void setTimeout(() => res.end('late'), 3000);
      if (req.url === '/protected' && revoked.has(req.headers.authorization ?? '')) {
        res.statusCode = 401;
        return void res.end('expired');
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true }));
    });
  });
  after(async () => {
    await g.t.close();
    await up.close();
  });

  const execute = (routeId: string, body: Record<string, unknown> = {}) =>
    g.call('POST', `/api/v1/gateway/routes/${routeId}/execute`, g.manager, body);

  it("adds the endpoint credentials of each auth type and never passes the caller's own credentials", async () => {
    const cases: [Record<string, unknown>, (r: (typeof up.requests)[number]) => void][] = [
      [{ type: 'none' }, (r) => expect(r.headers.authorization).to.equal(undefined)],
      [
        { type: 'apiKeyHeader', headerName: 'X-Api-Key', key: 'k1' },
        (r) => expect(r.headers['x-api-key']).to.equal('k1'),
      ],
      [
        { type: 'apiKeyQuery', paramName: 'appid', key: 'k 2' },
        (r) => expect(new URL(r.url, 'http://x').searchParams.get('appid')).to.equal('k 2'),
      ],
      [{ type: 'bearer', token: 't3' }, (r) => expect(r.headers.authorization).to.equal('Bearer t3')],
      [
        { type: 'basic', username: 'ann', password: 'p:4' },
        (r) => expect(r.headers.authorization).to.equal(`Basic ${Buffer.from('ann:p:4').toString('base64')}`),
      ],
    ];
    for (const [auth, check] of cases) {
      const ep = await g.createEndpoint({ baseUrl: up.url, auth });
      const route = await g.createRoute(ep.id, 'POST', '/items/{id}');
      up.requests.length = 0;
      const res = await execute(route.id, {
        params: { id: 'a/b' },
        query: { q: ['1', '2'] },
        headers: {
          Cookie: 'cms_session=abc',
          'X-Cms-Key': 'wbk_client',
          'X-Cms-Site-Key': 'site',
          'X-Forwarded-For': '1.2.3.4',
          'X-Trace': 't',
          ...(auth.type === 'none' ? { Authorization: 'Bearer client' } : {}),
        },
        body: { hello: 'world' },
      });
      expect(res.statusCode, JSON.stringify(auth)).to.equal(200);
      const seen = up.requests[0]!;
      expect(seen.url.split('?')[0]).to.equal('/items/a%2Fb');
      expect(new URL(seen.url, 'http://x').searchParams.getAll('q')).to.deep.equal(['1', '2']);
      expect(seen.headers.cookie).to.equal(undefined);
      expect(seen.headers['x-cms-key']).to.equal(undefined);
      expect(seen.headers['x-cms-site-key']).to.equal(undefined);
      expect(seen.headers['x-forwarded-for']).to.equal(undefined);
      expect(seen.headers['x-trace']).to.equal('t');
      expect(seen.headers['content-type']).to.equal('application/json');
      expect(JSON.parse(seen.body)).to.deep.equal({ hello: 'world' });
      check(seen);
    }
  });

  it('OAuth2 client credentials: one token fetch for concurrent calls, cached, refreshed before expiry, dropped on 401', async () => {
    const ep = await g.createEndpoint({
      baseUrl: up.url,
      auth: {
        type: 'oauth2ClientCredentials',
        tokenUrl: `${up.url}/token`,
        clientId: 'app',
        clientSecret: 's&cret',
        scope: 'read',
      },
    });
    const route = await g.createRoute(ep.id, 'GET', '/protected');
    const answers = await Promise.all([execute(route.id), execute(route.id), execute(route.id)]);
    expect(answers.map((a) => a.statusCode)).to.deep.equal([200, 200, 200]);
    expect(tokenRequests).to.equal(1);
    const tokenCall = up.requests.find((r) => r.url === '/token')!;
    expect(tokenCall.method).to.equal('POST');
    expect(tokenCall.headers.authorization).to.equal(`Basic ${Buffer.from('app:s%26cret').toString('base64')}`);
    expect(Object.fromEntries(new URLSearchParams(tokenCall.body))).to.deep.equal({
      grant_type: 'client_credentials',
      scope: 'read',
    });
    expect(up.requests.filter((r) => r.url === '/protected').map((r) => r.headers.authorization)).to.deep.equal([
      'Bearer tok-1',
      'Bearer tok-1',
      'Bearer tok-1',
    ]);

    // Cached while valid; 545 s into a 600 s token (inside the last minute) it is refreshed.
    clock.advance(500_000);
    await execute(route.id);
    expect(tokenRequests).to.equal(1);
    clock.advance(45_000);
    await execute(route.id);
    expect(tokenRequests).to.equal(2);
    expect(up.requests.at(-1)!.headers.authorization).to.equal('Bearer tok-2');
    // Credentials never come back.
    const read = await g.call('GET', `/api/v1/gateway/endpoints/${ep.id}`, g.manager);
    expect(read.body).not.to.contain('s&cret');
  });

  it('a refused token (401 from the upstream) is fetched anew on the next call', async () => {
    const ep = await g.createEndpoint({
      baseUrl: up.url,
      auth: {
        type: 'oauth2ClientCredentials',
        tokenUrl: `${up.url}/token`,
        clientId: 'app',
        clientSecret: 'x',
        clientAuth: 'body',
      },
    });
    const route = await g.createRoute(ep.id, 'GET', '/protected');
    expect((await execute(route.id)).json().status).to.equal(200);
    revoked.add('Bearer tok-1');
    const refused = await execute(route.id);
    expect(refused.json().status).to.equal(401);
    expect(tokenRequests).to.equal(1);
    const again = await execute(route.id);
    expect(again.json().status).to.equal(200);
    expect(tokenRequests).to.equal(2);
    expect(up.requests.at(-1)!.headers.authorization).to.equal('Bearer tok-2');
    expect(up.requests.filter((r) => r.url === '/token').at(-1)!.body).to.contain('client_secret=x');
  });

  it('a token endpoint without a token answers 502 UPSTREAM_AUTH_FAILED', async () => {
    const ep = await g.createEndpoint({
      baseUrl: up.url,
      auth: { type: 'oauth2ClientCredentials', tokenUrl: `${up.url}/nothing-here`, clientId: 'a', clientSecret: 'b' },
    });
    const route = await g.createRoute(ep.id, 'GET', '/protected');
    const res = await execute(route.id);
    expect(res.statusCode).to.equal(502);
    expect(res.json().code).to.equal('UPSTREAM_AUTH_FAILED');
  });

  it('refuses calls over the endpoint rate limit with 429 and Retry-After', async () => {
    const ep = await g.createEndpoint({ baseUrl: up.url, rateLimit: { requestsPerMinute: 2 } });
    const route = await g.createRoute(ep.id, 'GET', '/limited');
    expect((await execute(route.id)).statusCode).to.equal(200);
    expect((await execute(route.id)).statusCode).to.equal(200);
    const third = await execute(route.id);
    expect(third.statusCode).to.equal(429);
    expect(third.json().code).to.equal('ENDPOINT_RATE_LIMITED');
    expect(third.headers['retry-after']).to.equal('60');
    expect(up.requests.filter((r) => r.url === '/limited')).to.have.length(2);
    // Another endpoint is not affected.
    const other = await g.createEndpoint({ baseUrl: up.url });
    expect((await execute((await g.createRoute(other.id, 'GET', '/limited')).id)).statusCode).to.equal(200);
  });

  it('answers 504 UPSTREAM_TIMEOUT when the upstream is slower than the endpoint timeout, 502 when it is unreachable', async () => {
    const ep = await g.createEndpoint({ baseUrl: up.url, timeoutMs: 200 });
    const route = await g.createRoute(ep.id, 'GET', '/slow');
    const res = await execute(route.id);
    expect(res.statusCode).to.equal(504);
    expect(res.json().code).to.equal('UPSTREAM_TIMEOUT');
    const closed = await startUpstream();
    const url = closed.url;
    await closed.close();
    const gone = await g.createEndpoint({ baseUrl: url });
    const res2 = await execute((await g.createRoute(gone.id, 'GET', '/x')).id);
    expect(res2.statusCode).to.equal(502);
    expect(res2.json().code).to.equal('UPSTREAM_FAILED');
  });

  it('refuses a missing path parameter and a dot segment with 400 naming it', async () => {
    const ep = await g.createEndpoint({ baseUrl: up.url });
    const route = await g.createRoute(ep.id, 'GET', '/users/{id}');
    const missing = await execute(route.id, {});
    expect(missing.statusCode).to.equal(400);
    expect(missing.json().field).to.equal('params.id');
    const dots = await execute(route.id, { params: { id: '..' } });
    expect(dots.statusCode).to.equal(400);
    // The filled segment counts, not only the value: `{name}.` filled with `.` would spell `..`.
    const suffixed = await g.createRoute(ep.id, 'GET', '/files/{name}.');
    const climbing = await execute(suffixed.id, { params: { name: '.' } });
    expect(climbing.statusCode).to.equal(400);
    expect(climbing.json().field).to.equal('params.name');
    expect(up.requests).to.have.length(0);
    // A template holds no dot segment in any spelling.
    for (const path of ['/a/../admin', '/a/%2e%2e/admin', '/a/..;/admin', '/a/..%2fadmin', '/a\\..\\admin']) {
      const res = await g.call('POST', `/api/v1/gateway/endpoints/${ep.id}/routes`, g.manager, { method: 'GET', path });
      expect(res.statusCode, path).to.equal(400);
      expect(res.json().field, path).to.equal('path');
    }
  });

  it('refuses a body on a GET route (400 naming body) and answers 503 when stored credentials cannot be unsealed', async () => {
    const ep = await g.createEndpoint({ baseUrl: up.url, auth: { type: 'bearer', token: 'tok' } });
    const route = await g.createRoute(ep.id, 'GET', '/x');
    const withBody = await execute(route.id, { body: { a: 1 } });
    expect(withBody.statusCode).to.equal(400);
    expect(withBody.json().field).to.equal('body');
    // As after a lost or changed encryption key: the sealed value no longer opens.
    await g.t
      .db('gateway_endpoints')
      .where({ id: ep.id })
      .update({ auth_secret: 'v1:GATEWAY_SECRETS_ENCRYPTION_KEY:AAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAA==:AAAA' });
    await g.call('PATCH', `/api/v1/gateway/endpoints/${ep.id}`, g.manager, { timeoutMs: 5000 });
    const res = await execute(route.id);
    expect(res.statusCode).to.equal(503);
    expect(res.json().code).to.equal('CREDENTIALS_UNREADABLE');
    expect(up.requests).to.have.length(0);
  });

  it('does not follow redirects on route calls: the 3xx comes back as sent', async () => {
    up.handle((_req, res) => {
      res.statusCode = 302;
      res.setHeader('location', 'http://169.254.169.254/latest/meta-data/');
      res.end();
    });
    const ep = await g.createEndpoint({ baseUrl: up.url });
    const route = await g.createRoute(ep.id, 'GET', '/moved');
    const res = await execute(route.id);
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.deep.include({ status: 302 });
    expect(res.json().headers.location).to.equal('http://169.254.169.254/latest/meta-data/');
    expect(up.requests).to.have.length(1);
  });

  it('test answers the raw upstream answer, capped', async () => {
    up.handle((_req, res) => {
      res.statusCode = 418;
      res.setHeader('x-upstream', 'yes');
      res.end('x'.repeat(300 * 1024));
    });
    const ep = await g.createEndpoint({ baseUrl: up.url });
    const route = await g.createRoute(ep.id, 'GET', '/teapot');
    const res = await g.call('POST', `/api/v1/gateway/routes/${route.id}/test`, g.manager, {});
    expect(res.statusCode).to.equal(200);
    const body = res.json();
    expect(body).to.include({ status: 418, truncated: true, bodyEncoding: 'utf8' });
    expect(body.headers['x-upstream']).to.equal('yes');
    expect(body.body).to.have.length(256 * 1024);
  });
});
