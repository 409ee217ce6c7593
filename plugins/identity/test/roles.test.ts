import { expect } from 'chai';
import { auditRows, type TestKernel } from '../../../test/helpers/kernel.ts';
import { startIdentity } from './helpers.ts';

describe('identity: roles and permission keys', () => {
  let t: TestKernel;
  let cookie: string;
  before(async () => {
    t = await startIdentity();
    cookie = (await t.admin()).cookie;
  });
  after(() => t.close());

  const req = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, as = cookie) =>
    t.inject({ method, url, payload, headers: { cookie: as } });
  const roleId = async (name: string) => (await t.db('roles').where({ name }).first()).id as string;

  it('GET /auth/roles lists the seeded built-in roles; viewers get 403, anonymous 401', async () => {
    const res = await req('GET', '/auth/roles');
    expect(res.statusCode).to.equal(200);
    const byName = Object.fromEntries(res.json().roles.map((r: { name: string }) => [r.name, r]));
    expect(byName.admin).to.include({ builtin: true });
    expect(byName.editor.permissions).to.deep.equal(['objects:read', 'objects:write']);
    expect(byName.viewer.permissions).to.deep.equal(['objects:read']);
    const viewer = await t.createUser({ roles: ['viewer'] });
    expect((await req('GET', '/auth/roles', undefined, viewer.cookie)).statusCode).to.equal(403);
    expect((await t.inject({ method: 'GET', url: '/auth/roles' })).statusCode).to.equal(401);
  });

  it('POST /auth/roles creates a role (201) audited as role.create', async () => {
    const res = await req('POST', '/auth/roles', {
      name: 'reviewers',
      description: 'Review content',
      permissions: ['objects:read', 'objects:publish'],
    });
    expect(res.statusCode).to.equal(201);
    expect(res.json()).to.include({ name: 'reviewers', description: 'Review content', builtin: false, userCount: 0 });
    expect(res.json().permissions).to.deep.equal(['objects:publish', 'objects:read']);
    expect((await req('GET', `/auth/roles/${res.json().id}`)).json()).to.deep.equal(res.json());
    const [row] = await auditRows(t, 'role.create', res.json().id);
    expect(row.before).to.equal(null);
    expect(row.after).to.deep.equal({
      name: 'reviewers',
      description: 'Review content',
      permissions: ['objects:publish', 'objects:read'],
    });
  });

  it('unknown permission keys answer 400 naming permissions; bad names 400; a taken name 409; nothing audited', async () => {
    const before = (await auditRows(t, 'role.create')).length;
    const unknown = await req('POST', '/auth/roles', { name: 'x1', permissions: ['objects:read', 'made:up'] });
    expect(unknown.statusCode).to.equal(400);
    expect(unknown.json().field).to.equal('permissions');
    expect(unknown.json().message).to.contain('made:up');
    expect((await req('POST', '/auth/roles', { permissions: [] })).json().field).to.equal('name');
    expect((await req('POST', '/auth/roles', { name: '   ', permissions: [] })).json().field).to.equal('name');
    expect((await req('POST', '/auth/roles', { name: 'x2' })).json().field).to.equal('permissions');
    const taken = await req('POST', '/auth/roles', { name: 'editor', permissions: [] });
    expect(taken.statusCode).to.equal(409);
    expect(taken.json()).to.include({ code: 'UNIQUE_VIOLATION', field: 'name' });
    expect((await auditRows(t, 'role.create')).length).to.equal(before);
  });

  it('PATCH audits only what changed; a no-change PATCH writes no row', async () => {
    const id = (
      await req('POST', '/auth/roles', { name: 'patchme', description: 'd', permissions: ['objects:read'] })
    ).json().id;
    const res = await req('PATCH', `/auth/roles/${id}`, {
      permissions: ['objects:read', 'objects:write'],
      description: 'd',
    });
    expect(res.statusCode).to.equal(200);
    expect(res.json().permissions).to.deep.equal(['objects:read', 'objects:write']);
    const [row] = await auditRows(t, 'role.update', id);
    expect(row.before).to.deep.equal({ permissions: ['objects:read'] });
    expect(row.after).to.deep.equal({ permissions: ['objects:read', 'objects:write'] });
    expect(
      (await req('PATCH', `/auth/roles/${id}`, { permissions: ['objects:write', 'objects:read'] })).statusCode,
    ).to.equal(200);
    expect(await auditRows(t, 'role.update', id)).to.have.length(1);
    expect((await req('PATCH', `/auth/roles/${id}`, { permissions: ['nope:nope'] })).json().field).to.equal(
      'permissions',
    );
  });

  it('built-in roles cannot be renamed or deleted (409), but their permissions can change', async () => {
    const editor = await roleId('editor');
    const rename = await req('PATCH', `/auth/roles/${editor}`, { name: 'authors' });
    expect(rename.statusCode).to.equal(409);
    expect(rename.json().code).to.equal('BUILTIN_ROLE');
    const del = await req('DELETE', `/auth/roles/${editor}`);
    expect(del.statusCode).to.equal(409);
    expect(
      (await req('PATCH', `/auth/roles/${editor}`, { name: 'editor', description: 'Writers' })).statusCode,
    ).to.equal(200);
    const admin = await roleId('admin');
    // The admin role keeps keys of plugins this process does not load (data_subject:manage).
    expect((await req('PATCH', `/auth/roles/${admin}`, { description: 'Everything' })).statusCode).to.equal(200);
    expect(
      (await req('PATCH', `/auth/roles/${admin}`, { permissions: ['*', 'audit:read', 'data_subject:manage'] }))
        .statusCode,
    ).to.equal(200);
  });

  it('renaming a custom role keeps the mandatory-2FA list in step; deleting it removes it from the list', async () => {
    const id = (await req('POST', '/auth/roles', { name: 'finance', permissions: [] })).json().id;
    await t.inject({
      method: 'PUT',
      url: '/security-settings',
      headers: { cookie },
      payload: { mfaRequiredRoles: ['finance'] },
    });
    expect((await req('PATCH', `/auth/roles/${id}`, { name: 'accounting' })).json().name).to.equal('accounting');
    expect(
      (await t.inject({ method: 'GET', url: '/security-settings', headers: { cookie } })).json().mfaRequiredRoles,
    ).to.deep.equal(['accounting']);
    expect((await req('DELETE', `/auth/roles/${id}`)).statusCode).to.equal(204);
    expect(
      (await t.inject({ method: 'GET', url: '/security-settings', headers: { cookie } })).json().mfaRequiredRoles,
    ).to.deep.equal([]);
  });

  it('DELETE removes a custom role (204) from its users, audited with only `before`; unknown ids 404', async () => {
    const role = (await req('POST', '/auth/roles', { name: 'temporary', permissions: ['users:manage'] })).json();
    const u = await t.createUser({ roles: ['temporary'] });
    expect((await req('GET', '/auth/users', undefined, u.cookie)).statusCode).to.equal(200);
    expect((await req('DELETE', `/auth/roles/${role.id}`)).statusCode).to.equal(204);
    expect((await req('GET', '/auth/users', undefined, u.cookie)).statusCode).to.equal(403);
    const [row] = await auditRows(t, 'role.delete', role.id);
    expect(row.after).to.equal(null);
    expect(row.before).to.deep.equal({ name: 'temporary', description: '', permissions: ['users:manage'] });
    expect((await req('GET', `/auth/roles/${role.id}`)).statusCode).to.equal(404);
    expect((await req('DELETE', `/auth/roles/${role.id}`)).statusCode).to.equal(404);
    expect((await req('PATCH', '/auth/roles/not-a-uuid', { description: 'x' })).statusCode).to.equal(404);
  });

  it('GET /auth/permissions lists every declared key with its description (users:manage)', async () => {
    const res = await req('GET', '/auth/permissions');
    expect(res.statusCode).to.equal(200);
    const keys = res.json().permissions.map((p: { key: string }) => p.key);
    expect(keys).to.deep.equal(
      t.kernel
        .resolve('permissions')
        .list()
        .map((p) => p.key),
    );
    expect(keys).to.include.members([
      'objects:read',
      'objects:write',
      'objects:publish',
      'settings:manage',
      'users:manage',
      'audit:read',
    ]);
    const usersManage = res.json().permissions.find((p: { key: string }) => p.key === 'users:manage');
    expect(usersManage).to.deep.equal({
      key: 'users:manage',
      description: 'Manage users and roles',
      owner: 'identity',
      grantedBy: [],
    });
    // A shared key: every plugin that checks it declares it, and the list names them all.
    const write = res.json().permissions.find((p: { key: string }) => p.key === 'objects:write');
    expect(write.owner).to.equal('identity, fixture-broad-keys');
    const viewer = await t.createUser({ roles: ['viewer'] });
    expect((await req('GET', '/auth/permissions', undefined, viewer.cookie)).statusCode).to.equal(403);
    expect((await t.inject({ method: 'GET', url: '/auth/permissions' })).statusCode).to.equal(401);
  });
});
