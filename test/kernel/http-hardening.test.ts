import { expect } from 'chai';
import { Type } from '@sinclair/typebox';
import { definePlugin, requestContext, type PluginManifest } from '../../kernel/index.ts';
import { findInputProblem, MAX_INPUT_DEPTH } from '../../kernel/input-checks.ts';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';
import { ANY_JSON_ANSWER } from '../helpers/any-answer.ts';

/** Routes of every access kind, a bytes route, and an echo of the client address. */
const probe = definePlugin({
  id: 'test-hardening',
  processes: ['core-api'],
  needs: ['audit'],
  routes(app, { audit }) {
    app.post(
      '/t/public-echo',
      { config: { public: true }, schema: { response: ANY_JSON_ANSWER } },
      async (request) => ({
        ip: request.ip,
        body: request.body ?? null,
      }),
    );
    app.get('/t/public-read', { config: { public: true }, schema: { response: ANY_JSON_ANSWER } }, async () => ({
      ok: true,
    }));
    // A public route that reads the cookie itself, as routes taking a session or a service token do.
    app.post(
      '/t/public-self-checked',
      { config: { public: true }, schema: { response: ANY_JSON_ANSWER } },
      async (request) => ({
        cookie: request.cookies.cms_session ?? null,
        header: request.headers.cookie ?? null,
        withheld: request.sessionCookieWithheld === true,
      }),
    );
    app.get('/t/session-read', { config: { session: true }, schema: { response: ANY_JSON_ANSWER } }, async () => ({
      ok: true,
    }));
    app.post(
      '/t/session-write',
      { config: { session: true }, schema: { response: ANY_JSON_ANSWER } },
      async (request) => {
        await audit.record(requestContext(request), { action: 'widget.touch' });
        return { ok: true };
      },
    );
    // A route that takes raw bytes, as the asset and gateway services do.
    app.register(async (bytes) => {
      bytes.addContentTypeParser(
        'application/octet-stream',
        { parseAs: 'buffer', bodyLimit: 32 * 1024 * 1024 },
        (_req, body, done) => done(null, body),
      );
      bytes.post('/t/bytes', { config: { public: true }, schema: { response: ANY_JSON_ANSWER } }, async (request) => ({
        length: (request.body as Buffer).length,
      }));
    });
  },
}) as PluginManifest;

const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('HTTP hardening: input walker', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ plugins: [], extraPlugins: [probe] });
  });
  after(() => t.close());

  const postJson = (payload: string) =>
    t.inject({ method: 'POST', url: '/t/public-echo', headers: { 'content-type': 'application/json' }, payload });

  it('refuses a body nested a million levels deep with 400 TOO_DEEP, not a stack overflow', async () => {
    const res = await postJson(nested(1_000_000));
    expect(res.statusCode).to.equal(400);
    expect(res.json()).to.include({ code: 'TOO_DEEP' });
    expect(res.json().field).to.match(/^a(\.a)+$/);
  });

  it('accepts nesting up to the cap and refuses one level more, naming the path', async () => {
    expect((await postJson(nested(MAX_INPUT_DEPTH - 1))).statusCode).to.equal(200);
    const over = await postJson(nested(MAX_INPUT_DEPTH + 1));
    expect(over.statusCode).to.equal(400);
    expect(over.json().field.split('.')).to.have.length(MAX_INPUT_DEPTH);
  });

  it('refuses lone surrogates in values and keys with 400 INVALID_TEXT naming the field', async () => {
    const value = await postJson('{"list":["ok","x\\ud800y"]}');
    expect(value.statusCode).to.equal(400);
    expect(value.json()).to.include({ code: 'INVALID_TEXT', field: 'list.1' });
    const key = await postJson('{"good":1,"k\\udc00":2}');
    expect(key.json()).to.include({ code: 'INVALID_TEXT', field: 'k\udc00' });
    // A proper pair is text like any other.
    expect((await postJson('{"emoji":"\\ud83d\\ude00"}')).statusCode).to.equal(200);
  });

  it('reports the first problem in document order, keys before their values', () => {
    expect(findInputProblem({ a: 'fine', b: ['x', 'n\u0000'], c: 'n\u0000' })).to.deep.equal({
      path: 'b.1',
      code: 'NUL_CHARACTER',
    });
    expect(findInputProblem({ 'k\u0000': 'v\u0000' })).to.deep.equal({ path: 'k\u0000', code: 'NUL_CHARACTER' });
    expect(findInputProblem({ a: { b: 'ok' } })).to.equal(null);
  });

  it('answers flat objects (queries, path parameters) like the full walk', () => {
    const query = Object.assign(Object.create(null), { limit: '20', 'filter[slug]': 'x\u0000', sort: 'n\ud800' });
    expect(findInputProblem(query)).to.deep.equal({ path: 'filter[slug]', code: 'NUL_CHARACTER' });
    expect(findInputProblem({ a: 'ok', 'k\ud800': 'v\u0000' })).to.deep.equal({
      path: 'k\ud800',
      code: 'INVALID_TEXT',
    });
    expect(findInputProblem({ n: 1, t: true, z: null, s: 'fine' })).to.equal(null);
    expect(findInputProblem({ s: 'fine', n: Infinity })).to.deep.equal({ path: 'n', code: 'NOT_FINITE' });
  });

  it('never walks bytes: a 16 MB binary body passes straight to its route', async () => {
    const payload = Buffer.alloc(16 * 1024 * 1024, 0);
    const res = await t.inject({
      method: 'POST',
      url: '/t/bytes',
      headers: { 'content-type': 'application/octet-stream' },
      payload,
    });
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.deep.equal({ length: payload.length });
    // Walking it byte by byte took 34 s before: the walker must not even list a Buffer's keys.
    const untouchable = new Proxy(payload, {
      ownKeys: () => {
        throw new Error('the walker listed the bytes');
      },
    });
    expect(findInputProblem({ file: untouchable })).to.equal(null);
    expect(
      findInputProblem({
        instance: new (class Stream {
          text = 'n\u0000';
        })(),
      }),
    ).to.equal(null);
  });
});

describe('HTTP: validation errors name the field', () => {
  it('names an unknown body property, nested or not', async () => {
    const strict = definePlugin({
      id: 'test-strict',
      processes: ['core-api'],
      needs: [],
      routes(app) {
        app.post(
          '/t/strict',
          {
            config: { public: true },
            schema: {
              response: ANY_JSON_ANSWER,
              body: Type.Object(
                { name: Type.String(), size: Type.Object({ width: Type.Integer() }, { additionalProperties: false }) },
                { additionalProperties: false },
              ),
            },
          },
          async () => ({ ok: true }),
        );
      },
    }) as PluginManifest;
    const t = await startTestKernel({ plugins: [], extraPlugins: [strict] });
    try {
      const top = await t.inject({
        method: 'POST',
        url: '/t/strict',
        payload: { name: 'a', size: { width: 1 }, colour: 'red' },
      });
      expect(top.statusCode).to.equal(400);
      expect(top.json()).to.include({ code: 'VALIDATION_FAILED', field: 'colour' });
      const nested = await t.inject({
        method: 'POST',
        url: '/t/strict',
        payload: { name: 'a', size: { width: 1, depth: 2 } },
      });
      expect(nested.json()).to.include({ field: 'size.depth' });
    } finally {
      await t.close();
    }
  });
});

describe('HTTP hardening: cross-site requests (CSRF) and CORS', () => {
  let t: TestKernel;
  let cookie: string;
  before(async () => {
    t = await startTestKernel({
      plugins: ['identity'],
      extraPlugins: [probe],
      env: {
        PUBLIC_BASE_URL: 'https://cms.example.org',
        CORS_ALLOWED_ORIGINS: 'https://studio.example.net',
        CORS_ALLOWED_HOSTS: '*.partner.example',
      },
    });
    cookie = (await t.createUser({ roles: ['viewer'] })).cookie;
  });
  after(() => t.close());

  const write = (headers: Record<string, string>) =>
    t.inject({ method: 'POST', url: '/t/session-write', headers: { cookie, ...headers }, payload: {} });

  it('refuses a cookie-authenticated write from a foreign Origin or Referer with 403 CSRF_ORIGIN_REFUSED', async () => {
    for (const headers of <Array<Record<string, string>>>[
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { referer: 'https://evil.example/page' },
      { origin: 'https://cms.example.org.evil.example' },
    ]) {
      const res = await write(headers);
      expect(res.statusCode, JSON.stringify(headers)).to.equal(403);
      expect(res.json()).to.include({ code: 'CSRF_ORIGIN_REFUSED' });
    }
    const logout = await t.inject({
      method: 'POST',
      url: '/auth/logout',
      headers: { cookie, origin: 'https://evil.example', 'content-type': 'text/plain' },
      payload: 'x',
    });
    expect(logout.statusCode).to.equal(403);
    expect((await t.inject({ method: 'GET', url: '/t/session-read', headers: { cookie } })).statusCode).to.equal(200);
  });

  it('withholds the session cookie from a cross-site write to a public route, whoever reads it afterwards', async () => {
    const token = cookie.split('=')[1];
    const post = (headers: Record<string, string>) =>
      t.inject({
        method: 'POST',
        url: '/t/public-self-checked',
        headers: { cookie: `a=1; ${cookie}; b=2`, ...headers },
        payload: {},
      });
    for (const headers of <Array<Record<string, string>>>[
      { origin: 'https://evil.example' },
      { referer: 'https://evil.example/page' },
    ]) {
      const res = await post(headers);
      expect(res.statusCode, JSON.stringify(headers)).to.equal(200);
      expect(res.json(), JSON.stringify(headers)).to.deep.equal({ cookie: null, header: 'a=1; b=2', withheld: true });
    }
    for (const headers of <Array<Record<string, string>>>[{}, { origin: 'https://cms.example.org' }]) {
      const res = await post(headers);
      expect(res.json(), JSON.stringify(headers)).to.deep.equal({
        cookie: token,
        header: `a=1; ${cookie}; b=2`,
        withheld: false,
      });
    }
    // Reads are not writes: a cross-site GET keeps the cookie (SameSite=Lax sends it on navigation).
    const read = await t.inject({
      method: 'GET',
      url: '/t/session-read',
      headers: { cookie, origin: 'https://evil.example' },
    });
    expect(read.statusCode).to.equal(200);
  });

  it("accepts writes from the workspace, the allowlists, the request's own host, and clients that send no Origin", async () => {
    for (const headers of [
      {},
      { origin: 'https://cms.example.org' },
      { origin: 'https://studio.example.net' },
      { origin: 'https://a.partner.example' },
      { origin: 'http://localhost:80', host: 'localhost:80' },
      { referer: 'https://cms.example.org/admin/users' },
    ]) {
      expect((await write(headers as Record<string, string>)).statusCode, JSON.stringify(headers)).to.equal(200);
    }
  });

  it('answers credentialed CORS only to allowed origins on session routes', async () => {
    const allowed = await t.inject({
      method: 'GET',
      url: '/t/session-read',
      headers: { cookie, origin: 'https://studio.example.net' },
    });
    expect(allowed.headers['access-control-allow-origin']).to.equal('https://studio.example.net');
    expect(allowed.headers['access-control-allow-credentials']).to.equal('true');
    const foreign = await t.inject({
      method: 'GET',
      url: '/t/session-read',
      headers: { cookie, origin: 'https://evil.example' },
    });
    expect(foreign.headers).not.to.have.property('access-control-allow-origin');
    expect(foreign.headers).not.to.have.property('access-control-allow-credentials');
  });

  it('answers public routes to any origin without credentials', async () => {
    const res = await t.inject({
      method: 'GET',
      url: '/t/public-read',
      headers: { origin: 'https://any-site.example' },
    });
    expect(res.headers['access-control-allow-origin']).to.equal('*');
    expect(res.headers).not.to.have.property('access-control-allow-credentials');
  });

  it('answers preflights: allowed origins with credentials, others without', async () => {
    const preflight = (origin: string) =>
      t.inject({
        method: 'OPTIONS',
        url: '/t/session-write',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
    const allowed = await preflight('https://studio.example.net');
    expect(allowed.statusCode).to.equal(204);
    expect(allowed.headers).to.include({
      'access-control-allow-origin': 'https://studio.example.net',
      'access-control-allow-credentials': 'true',
    });
    const other = await preflight('https://site.example');
    expect(other.statusCode).to.equal(204);
    expect(other.headers['access-control-allow-origin']).to.equal('*');
    expect(other.headers).not.to.have.property('access-control-allow-credentials');
  });

  it('keeps the CORS details browsers and caches rely on: Vary, allowed methods and headers, max age, refused incomplete preflights', async () => {
    const read = await t.inject({ method: 'GET', url: '/t/public-read' });
    expect(read.headers).to.include({
      vary: 'Origin',
      'access-control-allow-origin': '*',
      'access-control-expose-headers': 'Retry-After, X-Request-Id, ETag',
    });
    const preflight = await t.inject({
      method: 'OPTIONS',
      url: '/t/session-write',
      headers: {
        origin: 'https://studio.example.net',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, x-request-id',
      },
    });
    expect(preflight.statusCode).to.equal(204);
    expect(preflight.headers).to.include({
      vary: 'Origin, Access-Control-Request-Headers',
      'access-control-allow-methods': 'GET, HEAD, POST, PUT, PATCH, DELETE',
      'access-control-allow-headers': 'content-type, x-request-id',
      'access-control-max-age': '600',
      'content-length': '0',
    });
    const incomplete = await t.inject({
      method: 'OPTIONS',
      url: '/t/session-write',
      headers: { origin: 'https://studio.example.net' },
    });
    expect(incomplete.statusCode, 'an allowed origin without a requested method is no preflight').to.equal(400);
    const foreign = await t.inject({
      method: 'OPTIONS',
      url: '/t/session-write',
      headers: { origin: 'https://evil.example' },
    });
    expect(foreign.statusCode, 'a foreign non-preflight OPTIONS gets no CORS answer').to.equal(401);
  });
});

describe('HTTP hardening: client address behind the proxy', () => {
  it('TRUST_PROXY=1 takes the address the proxy saw (the rightmost X-Forwarded-For entry), not what the client claims', async () => {
    const t = await startTestKernel({ plugins: [], extraPlugins: [probe], env: { TRUST_PROXY: '1' } });
    try {
      const res = await t.inject({
        method: 'POST',
        url: '/t/public-echo',
        remoteAddress: '127.0.0.1',
        headers: { 'x-forwarded-for': '6.6.6.6, 198.51.100.9' },
      });
      expect(res.json().ip).to.equal('198.51.100.9');
      // A client reaching the process directly (not from a proxy network) cannot pose as a proxy.
      const direct = await t.inject({
        method: 'POST',
        url: '/t/public-echo',
        remoteAddress: '203.0.113.5',
        headers: { 'x-forwarded-for': '6.6.6.6' },
      });
      expect(direct.json().ip).to.equal('203.0.113.5');
    } finally {
      await t.close();
    }
  });

  it('a client cannot pass a per-address limit by spoofing the leftmost X-Forwarded-For entry', async () => {
    const t = await startTestKernel({
      plugins: ['data'],
      env: { TRUST_PROXY: '1', PUBLIC_DATA_RATE_LIMIT_PER_MINUTE: '2' },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await t.inject({
          method: 'GET',
          url: '/public/data-objects?className=Nothing',
          remoteAddress: '127.0.0.1',
          headers: { 'x-forwarded-for': `10.9.9.${i}, 198.51.100.77` },
        });
        statuses.push(res.statusCode);
      }
      expect(statuses.filter((s) => s === 429)).to.have.length(4);
      // Another client behind the same proxy keeps its own budget.
      const other = await t.inject({
        method: 'GET',
        url: '/public/data-objects?className=Nothing',
        remoteAddress: '127.0.0.1',
        headers: { 'x-forwarded-for': '198.51.100.78' },
      });
      expect(other.statusCode).not.to.equal(429);
    } finally {
      await t.close();
    }
  });

  it('TRUST_PROXY with addresses trusts only those proxies', async () => {
    const t = await startTestKernel({
      plugins: [],
      extraPlugins: [probe],
      env: { TRUST_PROXY: '127.0.0.1,10.0.0.0/8' },
    });
    try {
      const viaProxy = await t.inject({
        method: 'POST',
        url: '/t/public-echo',
        remoteAddress: '127.0.0.1',
        headers: { 'x-forwarded-for': '6.6.6.6, 10.1.2.3' },
      });
      expect(viaProxy.json().ip).to.equal('6.6.6.6');
      const direct = await t.inject({
        method: 'POST',
        url: '/t/public-echo',
        remoteAddress: '203.0.113.5',
        headers: { 'x-forwarded-for': '6.6.6.6' },
      });
      expect(direct.json().ip).to.equal('203.0.113.5');
    } finally {
      await t.close();
    }
  });
});

describe('HTTP: errors the router raises before a route is chosen', () => {
  const params = definePlugin({
    id: 'test-params',
    processes: ['core-api'],
    needs: [],
    routes(app) {
      app.get(
        '/t/items/:id',
        {
          config: { public: true },
          schema: { response: ANY_JSON_ANSWER, params: Type.Object({ id: Type.String({ maxLength: 200 }) }) },
        },
        async (request) => ({
          id: (request.params as { id: string }).id,
        }),
      );
    },
  }) as PluginManifest;
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ plugins: [], extraPlugins: [params] });
  });
  after(() => t.close());

  it("lets the route's schema judge a long path parameter (400 naming it), not the router's 100-character default", async () => {
    expect((await t.inject({ url: `/t/items/${'a'.repeat(150)}` })).json()).to.deep.equal({ id: 'a'.repeat(150) });
    const over = await t.inject({ url: `/t/items/${'a'.repeat(201)}` });
    expect(over.statusCode).to.equal(400);
    expect(over.json()).to.include({ code: 'VALIDATION_FAILED', field: 'id' });
  });

  it('answers a parameter over the router cap and a broken percent-encoding with the documented error body', async () => {
    const long = await t.inject({ url: `/t/items/${'a'.repeat(3000)}` });
    expect(long.statusCode).to.equal(414);
    expect(long.json()).to.include({ statusCode: 414, code: 'PATH_PARAMETER_TOO_LONG' });
    expect(long.json().requestId).to.be.a('string');
    const broken = await t.inject({ url: '/t/items/%E0%A4%A' });
    expect(broken.statusCode).to.equal(400);
    expect(broken.json()).to.include({ statusCode: 400, code: 'INVALID_URL' });
  });
});
