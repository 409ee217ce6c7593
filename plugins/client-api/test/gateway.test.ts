import { expect } from 'chai';
import { startClientKernel, type ClientKernel } from './helpers.ts';
import { startUpstream, type Upstream } from '../../../test/helpers/upstream.ts';
import { echoWithInternalHeaders, fixtureCatalog } from './fixture-catalog.ts';

describe('client-api: automations and passthrough through the gateway catalog', () => {
  let k: ClientKernel;
  let crm: Upstream;
  let engine: Upstream;
  let full: string;
  let narrow: string;

  before(async () => {
    crm = await startUpstream(echoWithInternalHeaders);
    engine = await startUpstream((req, res) => {
      if (req.url.startsWith('/flows/broken')) {
        res.statusCode = 500;
        return res.end('engine crashed');
      }
      res.setHeader('content-type', 'application/json');
      const body = JSON.parse(req.body || '{}') as { answer?: unknown };
      res.end(JSON.stringify(body.answer ?? { received: body }));
    });
    const fixture = fixtureCatalog([
      {
        id: 'ep-crm',
        name: 'crm',
        baseUrl: crm.url,
        credential: ['x-api-token', 'server-side-secret'],
        routes: [
          { id: 'r-user', method: 'GET', pathTemplate: '/users/{id}' },
          { id: 'r-create', method: 'POST', pathTemplate: '/users' },
          { id: 'r-orders', method: 'GET', pathTemplate: '/users/{id}/orders' },
        ],
      },
      {
        id: 'ep-engine',
        name: 'engine',
        baseUrl: engine.url,
        credential: ['authorization', 'Bearer engine-secret'],
        routes: [
          { id: 'r-signup', method: 'POST', pathTemplate: '/flows/signup' },
          { id: 'r-broken', method: 'POST', pathTemplate: '/flows/broken' },
          { id: 'r-other', method: 'POST', pathTemplate: '/flows/other' },
        ],
      },
      {
        id: 'ep-down',
        name: 'down',
        baseUrl: 'http://127.0.0.1:1',
        credential: ['x', 'y'],
        routes: [{ id: 'r-down', method: 'POST', pathTemplate: '/run' }],
      },
    ]);
    k = await startClientKernel({
      extraPlugins: [fixture.plugin],
      env: { CLIENT_DEFAULT_REQUESTS_PER_MINUTE: '100000' },
    });
    full = (
      await k.createClient({
        scopes: [
          'gateway:call:crm',
          'automation:run:engine:r-signup',
          'automation:run:engine:r-broken',
          'automation:run:ep-down:*',
        ],
      })
    ).key;
    narrow = (await k.createClient({ scopes: ['gateway:call:ep-crm:r-user'] })).key;
  });
  after(async () => {
    await k?.close();
    await crm?.close();
    await engine?.close();
  });

  describe('POST /client/v1/automations/:endpoint/*', () => {
    it('calls the route, waits, and answers { ok, outcome, response }', async () => {
      const res = await k.asClient(full, 'POST', '/client/v1/automations/engine/flows/signup', {
        payload: { email: 'a@b.test', answer: { outcome: 'created', id: 7 } },
      });
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.json()).to.deep.equal({ ok: true, outcome: 'created', response: { outcome: 'created', id: 7 } });
      const seen = engine.requests.at(-1)!;
      expect(JSON.parse(seen.body)).to.deep.include({ email: 'a@b.test' });
      // The gateway's credential went out, the client's key did not.
      expect(seen.headers.authorization).to.equal('Bearer engine-secret');
      expect(JSON.stringify(seen.headers)).to.not.include(full);
    });

    it('gives outcome for a plain key answer and none otherwise', async () => {
      const plain = await k.asClient(full, 'POST', '/client/v1/automations/engine/flows/signup', {
        payload: { answer: 'queued' },
      });
      expect(plain.json()).to.deep.equal({ ok: true, outcome: 'queued', response: 'queued' });
      const long = await k.asClient(full, 'POST', '/client/v1/automations/engine/flows/signup', {
        payload: { answer: 'not a key at all' },
      });
      expect(long.json()).to.deep.equal({ ok: true, response: 'not a key at all' });
    });

    it('answers 502 on an engine error or an unreachable engine', async () => {
      const broken = await k.asClient(full, 'POST', '/client/v1/automations/engine/flows/broken', { payload: {} });
      expect(broken.statusCode).to.equal(502);
      expect(broken.json().code).to.equal('AUTOMATION_ENGINE_ERROR');
      const down = await k.asClient(full, 'POST', '/client/v1/automations/down/run', { payload: {} });
      expect(down.statusCode).to.equal(502);
    });

    it('answers 404 Not found for a route out of scope, an unknown route or endpoint', async () => {
      for (const url of [
        '/client/v1/automations/engine/flows/other',
        '/client/v1/automations/engine/flows/none',
        '/client/v1/automations/nowhere/x',
      ]) {
        const res = await k.asClient(full, 'POST', url, { payload: {} });
        expect(res.statusCode, url).to.equal(404);
        expect(res.body).to.equal('Not found');
      }
      const noScope = await k.asClient(narrow, 'POST', '/client/v1/automations/engine/flows/signup', { payload: {} });
      expect(noScope.statusCode).to.equal(404);
    });

    it('takes JSON bodies up to 1 MB (413 beyond)', async () => {
      const big = { pad: 'x'.repeat(1024 * 1024) };
      const res = await k.asClient(full, 'POST', '/client/v1/automations/engine/flows/signup', { payload: big });
      expect(res.statusCode).to.equal(413);
    });
  });

  describe('ALL /client/v1/gateway/:endpoint/*', () => {
    it("matches a path template, passes query and JSON body, adds the gateway credential, strips the client's", async () => {
      const res = await k.asClient(full, 'GET', '/client/v1/gateway/crm/users/42?fields=name&tag=a&tag=b', {
        headers: { cookie: 'cms_session=abc', 'x-forwarded-for': '1.2.3.4' },
      });
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.json()).to.deep.include({ method: 'GET', url: '/users/42?fields=name&tag=a&tag=b' });
      // Upstream-only answer headers stay behind.
      expect(res.headers['set-cookie']).to.equal(undefined);
      expect(res.headers['x-upstream-secret']).to.equal(undefined);
      const seen = crm.requests.at(-1)!;
      expect(seen.headers['x-api-token']).to.equal('server-side-secret');
      for (const name of ['authorization', 'x-cms-key', 'cookie', 'x-forwarded-for'])
        expect(seen.headers[name], name).to.equal(undefined);

      const viaHeader = await k.asClient(null, 'POST', '/client/v1/gateway/crm/users', {
        headers: { 'x-cms-key': full },
        payload: { name: 'Ada' },
      });
      expect(viaHeader.statusCode).to.equal(200);
      expect(JSON.parse(viaHeader.json().body)).to.deep.equal({ name: 'Ada' });
      expect(crm.requests.at(-1)!.headers['x-cms-key']).to.equal(undefined);
    });

    it('allows only the routes the scopes name (endpoint by name or id, one route or all)', async () => {
      expect((await k.asClient(narrow, 'GET', '/client/v1/gateway/crm/users/1')).statusCode).to.equal(200);
      expect((await k.asClient(narrow, 'GET', '/client/v1/gateway/ep-crm/users/1')).statusCode).to.equal(200);
      for (const [method, url] of [
        ['GET', '/client/v1/gateway/crm/users/1/orders'],
        ['POST', '/client/v1/gateway/crm/users'],
        ['GET', '/client/v1/gateway/engine/flows/signup'],
        ['DELETE', '/client/v1/gateway/crm/users/1'],
      ]) {
        const res = await k.asClient(narrow, method, url, method === 'POST' ? { payload: {} } : {});
        expect(res.statusCode, `${method} ${url}`).to.equal(404);
        expect(res.body).to.equal('Not found');
      }
      expect((await k.asClient(full, 'GET', '/client/v1/gateway/crm/users/1/orders')).statusCode).to.equal(200);
    });
  });
});

describe('client-api: gateway routes without a gateway catalog', () => {
  it('answers 404 Not found', async () => {
    const k = await startClientKernel();
    try {
      const { key } = await k.createClient({ scopes: ['gateway:call:crm', 'automation:run:crm:*'] });
      expect((await k.asClient(key, 'GET', '/client/v1/gateway/crm/users/1')).body).to.equal('Not found');
      expect((await k.asClient(key, 'POST', '/client/v1/automations/crm/x', { payload: {} })).statusCode).to.equal(404);
    } finally {
      await k.close();
    }
  });
});
