import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { hashToken } from '../../../kernel/passwords.ts';
import { startClientKernel, type ClientKernel } from './helpers.ts';

describe('client-api: client administration', () => {
  let k: ClientKernel;
  before(async () => {
    k = await startClientKernel();
  });
  after(() => k?.close());

  it('creates a key client whose first key is shown once; lists show only the prefix', async () => {
    const { id, key, body } = await k.createClient({
      scopes: ['data:read:Article'],
      limits: { requestsPerMinute: 100 },
      allowedAddresses: ['10.0.0.0/8', '2001:db8::/32'],
    });
    expect(key).to.match(/^wbk_[A-Za-z0-9_-]{43}$/);
    expect(body).to.include({ authMode: 'key', status: 'active' });
    const keys = body.keys as Array<{ prefix: string }>;
    expect(keys).to.have.length(1);
    expect(key.startsWith(keys[0].prefix)).to.equal(true);

    const rows = await k.t.db('api_client_keys').where({ client_id: id });
    expect(rows[0].key_hash).to.equal(hashToken(key));
    for (const url of ['/api/v1/gateway/clients', `/api/v1/gateway/clients/${id}`]) {
      const res = await k.asAdmin('GET', url);
      expect(res.statusCode).to.equal(200);
      expect(res.body).to.not.include(key);
      expect(res.body).to.not.include(rows[0].key_hash);
      expect(res.body).to.include(keys[0].prefix);
    }
  });

  it('refuses a data scope whose class is spelled in another case, naming the class meant', async () => {
    const className = await k.createClass([{ name: 'title', type: 'text' }]);
    const wrong = className.toUpperCase();
    const res = await k.asAdmin('POST', '/api/v1/gateway/clients', {
      name: 'case',
      authMode: 'key',
      scopes: ['data:read:*', `data:read:${wrong}`],
    });
    expect(res.statusCode, res.body).to.equal(400);
    expect(res.json()).to.include({ code: 'UNKNOWN_CLASS', field: 'scopes.1' });
    expect(res.json().message).to.include(`"${wrong}"`).and.include(`"data:read:${className}"`);
    expect(await k.t.db('api_clients').where({ name: 'case' })).to.have.length(0);

    // The exact name is taken, and a patch to the wrong case is refused as well.
    const { id } = await k.createClient({ scopes: [`data:read:${className}`] });
    const patch = await k.asAdmin('PATCH', `/api/v1/gateway/clients/${id}`, { scopes: [`data:write:${wrong}`] });
    expect(patch.statusCode, patch.body).to.equal(400);
    expect(patch.json()).to.include({ code: 'UNKNOWN_CLASS', field: 'scopes.0' });
    // A class no spelling matches may come later (a bundle or a migration brings it): kept.
    const later = await k.asAdmin('PATCH', `/api/v1/gateway/clients/${id}`, { scopes: ['data:read:ComesLater'] });
    expect(later.statusCode, later.body).to.equal(200);
  });

  it('refuses a scope outside the grammar with 400 naming it', async () => {
    const res = await k.asAdmin('POST', '/api/v1/gateway/clients', {
      name: 'x',
      authMode: 'key',
      scopes: ['data:read:Article', 'data:delete:Article'],
    });
    expect(res.statusCode).to.equal(400);
    expect(res.json()).to.include({ code: 'INVALID_SCOPE', field: 'scopes.1' });
    expect(res.json().message).to.include('data:delete:Article');
    for (const bad of ['automation:run:crm', 'gateway:call:a:b:c', 'gateway:call:bad endpoint', 'data:read:']) {
      const r = await k.asAdmin('POST', '/api/v1/gateway/clients', { name: 'x', authMode: 'key', scopes: [bad] });
      expect(r.statusCode, bad).to.equal(400);
      expect(r.json().field).to.equal('scopes.0');
    }
  });

  it('checks scopes against the kind: a jwt client cannot write data, also after a PATCH of the kind', async () => {
    const jwt = { issuer: 'https://idp.example.test', audience: 'app' };
    const res = await k.asAdmin('POST', '/api/v1/gateway/clients', {
      name: 'j',
      authMode: 'jwt',
      jwt,
      scopes: ['data:write:Article'],
    });
    expect(res.statusCode).to.equal(400);
    expect(res.json()).to.include({ field: 'scopes.0', code: 'INVALID_SCOPE' });

    const { id, key } = await k.createClient({ scopes: ['data:read:Article', 'data:write:Article'] });
    expect((await k.asClient(key, 'GET', '/client/v1/me')).statusCode).to.equal(200);
    const patch = await k.asAdmin('PATCH', `/api/v1/gateway/clients/${id}`, { authMode: 'jwt', jwt });
    expect(patch.statusCode).to.equal(400);
    expect(patch.json().field).to.equal('scopes.1');
    const ok = await k.asAdmin('PATCH', `/api/v1/gateway/clients/${id}`, {
      authMode: 'jwt',
      jwt,
      scopes: ['data:read:Article'],
    });
    expect(ok.statusCode).to.equal(200);
    expect(ok.json()).to.include({ authMode: 'jwt' });
    expect(ok.json().jwt).to.deep.equal(jwt);
    // Its keys were revoked: switching back to key does not revive them.
    expect(ok.json().keys[0].revokedAt).to.be.a('string');
    const back = await k.asAdmin('PATCH', `/api/v1/gateway/clients/${id}`, { authMode: 'key' });
    expect(back.json()).to.include({ authMode: 'key', jwt: null });
    expect((await k.asClient(key, 'GET', '/client/v1/me')).statusCode).to.equal(401);
  });

  it('needs a provider registration for jwt clients and none for key clients', async () => {
    expect((await k.asAdmin('POST', '/api/v1/gateway/clients', { name: 'j', authMode: 'jwt' })).json().field).to.equal(
      'jwt',
    );
    expect(
      (
        await k.asAdmin('POST', '/api/v1/gateway/clients', {
          name: 'k',
          authMode: 'key',
          jwt: { issuer: 'https://a.test', audience: 'x' },
        })
      ).json().field,
    ).to.equal('jwt');
    expect(
      (
        await k.asAdmin('POST', '/api/v1/gateway/clients', {
          name: 'j',
          authMode: 'jwt',
          jwt: { issuer: 'not a url', audience: 'x' },
        })
      ).json().field,
    ).to.equal('jwt.issuer');
    const jwtClient = await k.asAdmin('POST', '/api/v1/gateway/clients', {
      name: 'j',
      authMode: 'jwt',
      jwt: { issuer: 'https://a.test', audience: 'x' },
    });
    expect(jwtClient.statusCode).to.equal(201);
    expect(jwtClient.json().key).to.equal(undefined);
    expect((await k.asAdmin('POST', `/api/v1/gateway/clients/${jwtClient.json().id}/keys`)).statusCode).to.equal(409);
  });

  it('refuses addresses that are not IPv4/IPv6 addresses or CIDR blocks, naming the entry', async () => {
    for (const bad of ['10.0.0.0/33', 'example.com', '2001:db8::/129', '1.2.3.4/8/1']) {
      const res = await k.asAdmin('POST', '/api/v1/gateway/clients', {
        name: 'a',
        authMode: 'key',
        allowedAddresses: ['127.0.0.1', bad],
      });
      expect(res.statusCode, bad).to.equal(400);
      expect(res.json()).to.include({ field: 'allowedAddresses.1', code: 'INVALID_ADDRESS' });
    }
  });

  it('adds keys (rotation) and revokes them; a revoked key answers 401 at once', async () => {
    const { id, key } = await k.createClient({ scopes: [] });
    const added = await k.asAdmin('POST', `/api/v1/gateway/clients/${id}/keys`);
    expect(added.statusCode).to.equal(201);
    const second = added.json();
    expect(second.key).to.match(/^wbk_/);
    expect((await k.asClient(key, 'GET', '/client/v1/me')).statusCode).to.equal(200);
    expect((await k.asClient(second.key, 'GET', '/client/v1/me')).statusCode).to.equal(200);

    const firstKeyId = (await k.asAdmin('GET', `/api/v1/gateway/clients/${id}`)).json().keys[0].id;
    const revoked = await k.asAdmin('DELETE', `/api/v1/gateway/clients/${id}/keys/${firstKeyId}`);
    expect(revoked.statusCode).to.equal(200);
    expect(revoked.json().revokedAt).to.be.a('string');
    expect((await k.asClient(key, 'GET', '/client/v1/me')).statusCode).to.equal(401);
    expect((await k.asClient(second.key, 'GET', '/client/v1/me')).statusCode).to.equal(200);
    expect((await k.asAdmin('DELETE', `/api/v1/gateway/clients/${id}/keys/${randomUUID()}`)).statusCode).to.equal(404);
  });

  it('patches name, status, limits, addresses and expiry; deletes a client and its keys', async () => {
    const { id, key } = await k.createClient({ scopes: ['data:read:A'] });
    const res = await k.asAdmin('PATCH', `/api/v1/gateway/clients/${id}`, {
      name: 'renamed',
      status: 'suspended',
      limits: { requestsPerMinute: 5 },
      allowedAddresses: ['::1'],
      expiresAt: '2030-01-01T00:00:00.000Z',
    });
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.deep.include({
      name: 'renamed',
      status: 'suspended',
      limits: { requestsPerMinute: 5 },
      allowedAddresses: ['::1'],
      expiresAt: '2030-01-01T00:00:00.000Z',
      scopes: ['data:read:A'],
    });
    expect((await k.asAdmin('DELETE', `/api/v1/gateway/clients/${id}`)).statusCode).to.equal(204);
    expect((await k.asAdmin('GET', `/api/v1/gateway/clients/${id}`)).statusCode).to.equal(404);
    expect(await k.t.db('api_client_keys').where({ client_id: id })).to.have.length(0);
    expect((await k.asClient(key, 'GET', '/client/v1/me')).statusCode).to.equal(401);
  });

  it('needs a session (401) and gateway:manage (403); writes leave no audit rows', async () => {
    expect((await k.t.inject({ method: 'GET', url: '/api/v1/gateway/clients' })).statusCode).to.equal(401);
    const editor = await k.t.createUser({ permissions: ['objects:write'] });
    expect(
      (await k.t.inject({ method: 'GET', url: '/api/v1/gateway/clients', headers: { cookie: editor.cookie } }))
        .statusCode,
    ).to.equal(403);
    const manager = await k.t.createUser({ permissions: ['gateway:manage'] });
    const made = await k.t.inject({
      method: 'POST',
      url: '/api/v1/gateway/clients',
      headers: { cookie: manager.cookie },
      payload: { name: 'm', authMode: 'key' },
    });
    expect(made.statusCode).to.equal(201);
    const audit = await k.t
      .db('audit_log')
      .where('target_type', 'like', '%client%')
      .orWhere('action', 'like', 'gateway%');
    expect(audit).to.have.length(0);
  });
});
