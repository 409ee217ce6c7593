import { expect } from 'chai';
import { startGatewayKernel } from './helpers.ts';
import { startUpstream, type Upstream } from '../../../test/helpers/upstream.ts';

type G = Awaited<ReturnType<typeof startGatewayKernel>>;

describe('gateway endpoints and routes: administration', () => {
  let g: G;
  let up: Upstream;
  before(async () => {
    up = await startUpstream();
    g = await startGatewayKernel();
  });
  after(async () => {
    await g.t.close();
    await up.close();
  });

  it('answers 401 without a session and 403 without gateway:manage on every administration route', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const routes: [string, string][] = [
      ['GET', '/api/v1/gateway/endpoints'],
      ['POST', '/api/v1/gateway/endpoints'],
      ['GET', `/api/v1/gateway/endpoints/${id}`],
      ['PATCH', `/api/v1/gateway/endpoints/${id}`],
      ['DELETE', `/api/v1/gateway/endpoints/${id}`],
      ['GET', `/api/v1/gateway/endpoints/${id}/routes`],
      ['POST', `/api/v1/gateway/endpoints/${id}/routes`],
      ['POST', `/api/v1/gateway/endpoints/${id}/import-openapi`],
      ['PATCH', `/api/v1/gateway/routes/${id}`],
      ['DELETE', `/api/v1/gateway/routes/${id}`],
      ['POST', `/api/v1/gateway/routes/${id}/test`],
      ['POST', `/api/v1/gateway/routes/${id}/execute`],
      ['GET', `/api/v1/gateway/routes/${id}/schema`],
      ['POST', `/api/v1/gateway/routes/${id}/refresh-schema`],
      ['POST', '/api/v1/gateway/preview-resolve'],
      ['GET', '/api/v1/gateway/plugins'],
      ['GET', '/api/v1/gateway/presets'],
    ];
    for (const [method, url] of routes) {
      const anonymous = await g.call(method, url, null, method === 'GET' || method === 'DELETE' ? undefined : {});
      expect(anonymous.statusCode, `${method} ${url} anonymous`).to.equal(401);
      const stranger = await g.call(method, url, g.stranger, method === 'GET' || method === 'DELETE' ? undefined : {});
      expect(stranger.statusCode, `${method} ${url} without the key`).to.equal(403);
    }
  });

  it('stores credentials sealed and never returns them: create, list, get and patch answer { set: true }', async () => {
    const secret = 'very-secret-api-key-1234567890';
    const created = await g.call('POST', '/api/v1/gateway/endpoints', g.manager, {
      name: `keyed-${Date.now()}`,
      baseUrl: up.url + '/v2/',
      auth: { type: 'apiKeyHeader', headerName: 'X-Api-Key', key: secret },
      rateLimit: { requestsPerMinute: 100 },
      timeoutMs: 5000,
    });
    expect(created.statusCode).to.equal(201);
    const ep = created.json();
    expect(ep.auth).to.deep.equal({ type: 'apiKeyHeader', headerName: 'X-Api-Key', key: { set: true } });
    expect(ep.baseUrl).to.equal(up.url + '/v2');
    const reads = [
      created,
      await g.call('GET', '/api/v1/gateway/endpoints', g.manager),
      await g.call('GET', `/api/v1/gateway/endpoints/${ep.id}`, g.manager),
      await g.call('PATCH', `/api/v1/gateway/endpoints/${ep.id}`, g.manager, { timeoutMs: 6000 }),
    ];
    for (const r of reads) {
      expect(r.statusCode).to.be.oneOf([200, 201]);
      expect(r.body).not.to.contain(secret);
    }
    const row = await g.t.db('gateway_endpoints').where({ id: ep.id }).first();
    expect(row.auth_secret).to.be.a('string').and.not.contain(secret);
    expect(JSON.stringify(row)).not.to.contain(secret);

    // A PATCH of other auth settings keeps the stored secret; the upstream still gets it.
    const patched = await g.call('PATCH', `/api/v1/gateway/endpoints/${ep.id}`, g.manager, {
      auth: { type: 'apiKeyHeader', headerName: 'X-Key' },
    });
    expect(patched.json().auth).to.deep.equal({ type: 'apiKeyHeader', headerName: 'X-Key', key: { set: true } });
    const route = await g.createRoute(ep.id, 'GET', '/ping');
    up.requests.length = 0;
    const res = await g.call('POST', `/api/v1/gateway/routes/${route.id}/execute`, g.manager, {});
    expect(res.statusCode).to.equal(200);
    expect(up.requests[0]!.url).to.equal('/v2/ping');
    expect(up.requests[0]!.headers['x-key']).to.equal(secret);
    expect(res.body).not.to.contain(secret);
  });

  it('refuses a duplicate name with 409 UNIQUE_VIOLATION and bad input with a 400 naming the field', async () => {
    const ep = await g.createEndpoint({ baseUrl: up.url });
    const dup = await g.call('POST', '/api/v1/gateway/endpoints', g.manager, { name: ep.name, baseUrl: up.url });
    expect(dup.statusCode).to.equal(409);
    expect(dup.json()).to.include({ code: 'UNIQUE_VIOLATION', field: 'name' });
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'x1', baseUrl: 'ftp://example.com' }, 'baseUrl'],
      [{ name: 'x2', baseUrl: 'https://u:p@example.com' }, 'baseUrl'],
      [{ name: 'x3', baseUrl: 'https://example.com/?a=1' }, 'baseUrl'],
      [{ name: 'x4', baseUrl: 'https://example.com', auth: { type: 'bearer' } }, 'auth.token'],
      [{ name: 'x5', baseUrl: 'https://example.com', auth: { type: 'basic', password: 'p' } }, 'auth.username'],
      [
        { name: 'x6', baseUrl: 'https://example.com', defaultHeaders: { Authorization: 'Bearer x' } },
        'defaultHeaders.Authorization',
      ],
      [{ name: 'x7', baseUrl: 'https://example.com', preset: 'no-such-preset' }, 'preset'],
    ];
    for (const [body, field] of cases) {
      const res = await g.call('POST', '/api/v1/gateway/endpoints', g.manager, body);
      expect(res.statusCode, JSON.stringify(body)).to.equal(400);
      expect(res.json().field, JSON.stringify(body)).to.equal(field);
    }
    const badPath = await g.call('POST', `/api/v1/gateway/endpoints/${ep.id}/routes`, g.manager, {
      method: 'GET',
      path: '/a/{b',
    });
    expect(badPath.statusCode).to.equal(400);
    expect(badPath.json().field).to.equal('path');
    await g.createRoute(ep.id, 'GET', '/a/{b}');
    const twice = await g.call('POST', `/api/v1/gateway/endpoints/${ep.id}/routes`, g.manager, {
      method: 'GET',
      path: '/a/{b}',
    });
    expect(twice.statusCode).to.equal(409);
  });

  it('lists, patches and deletes routes; DELETE of an endpoint removes its routes', async () => {
    const ep = await g.createEndpoint({ baseUrl: up.url });
    const a = await g.createRoute(ep.id, 'GET', '/users/{id}');
    await g.createRoute(ep.id, 'POST', '/users');
    const list = await g.call('GET', `/api/v1/gateway/endpoints/${ep.id}/routes`, g.manager);
    expect(
      list
        .json()
        .items.map(
          (r: { method: string; path: string; pathParams: string[] }) => `${r.method} ${r.path} ${r.pathParams}`,
        ),
    ).to.deep.equal(['POST /users ', 'GET /users/{id} id']);
    const patched = await g.call('PATCH', `/api/v1/gateway/routes/${a.id}`, g.manager, {
      path: '/people/{personId}',
      name: 'person',
    });
    expect(patched.json()).to.include({ path: '/people/{personId}', name: 'person' });
    expect((await g.call('DELETE', `/api/v1/gateway/routes/${a.id}`, g.manager)).statusCode).to.equal(204);
    expect((await g.call('DELETE', `/api/v1/gateway/routes/${a.id}`, g.manager)).statusCode).to.equal(404);
    expect((await g.call('DELETE', `/api/v1/gateway/endpoints/${ep.id}`, g.manager)).statusCode).to.equal(204);
    expect(await g.t.db('gateway_routes').where({ endpoint_id: ep.id })).to.have.length(0);
    expect((await g.call('GET', `/api/v1/gateway/endpoints/${ep.id}`, g.manager)).statusCode).to.equal(404);
    expect((await g.call('GET', '/api/v1/gateway/endpoints/not-a-uuid', g.manager)).json()).to.include({
      statusCode: 400,
      field: 'id',
    });
  });

  it('lists the shipped presets and creates an endpoint with its routes from one', async () => {
    const presets = await g.call('GET', '/api/v1/gateway/presets', g.manager);
    const ids = presets.json().items.map((p: { id: string }) => p.id);
    expect(ids).to.include.members(['openweathermap', 'hubspot', 'stripe', 'paypal']);
    const res = await g.call('POST', '/api/v1/gateway/endpoints', g.manager, {
      name: `crm-${Date.now()}`,
      preset: 'hubspot',
      auth: { type: 'bearer', token: 'pat-na1-xyz' },
    });
    expect(res.statusCode).to.equal(201);
    expect(res.json()).to.include({ baseUrl: 'https://api.hubapi.com', presetId: 'hubspot' });
    const routes = await g.call('GET', `/api/v1/gateway/endpoints/${res.json().id}/routes`, g.manager);
    expect(routes.json().items.map((r: { path: string }) => r.path)).to.include('/crm/v3/objects/contacts/{contactId}');
    // The preset fixes the auth type and fills what the vendor fixes (PayPal's token URL).
    const wrong = await g.call('POST', '/api/v1/gateway/endpoints', g.manager, {
      name: `pay-${Date.now()}`,
      preset: 'stripe',
      auth: { type: 'basic', username: 'u', password: 'p' },
    });
    expect(wrong.statusCode).to.equal(400);
    const paypal = await g.call('POST', '/api/v1/gateway/endpoints', g.manager, {
      name: `paypal-${Date.now()}`,
      preset: 'paypal',
      auth: { type: 'oauth2ClientCredentials', clientId: 'client', clientSecret: 'secret' },
    });
    expect(paypal.statusCode).to.equal(201);
    expect(paypal.json().auth).to.deep.equal({
      type: 'oauth2ClientCredentials',
      tokenUrl: 'https://api-m.paypal.com/v1/oauth2/token',
      clientId: 'client',
      clientSecret: { set: true },
    });
  });
});
