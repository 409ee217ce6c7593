import { broadKeysPlugin } from '../../../test/fixtures/broad-keys-plugin.ts';
import { expect } from 'chai';
import { definePlugin, type PluginManifest } from '../../../kernel/index.ts';
import { auditRows, startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { login } from './helpers.ts';

// A function-level key granted by the broad objects:write, as content plugins declare them.
const widgets = definePlugin({
  id: 'test-widgets',
  processes: ['core-api'],
  needs: [],
  permissions: [{ key: 'widgets:edit', description: 'Edit widgets', grantedBy: ['objects:write'] }],
}) as PluginManifest;

type Who = TestUser;

/**
 * users:manage is not full administration: nobody grants a key they do not hold, and only those who
 * hold every key of a user or role may change it (so only a holder of `*` changes an administrator).
 */
describe('identity: no escalation through user and role management', () => {
  let t: TestKernel;
  let admin: Who;
  let manager: Who;
  before(async () => {
    t = await startTestKernel({ plugins: ['identity'], extraPlugins: [widgets, broadKeysPlugin] });
    admin = await t.admin();
    manager = await t.createUser({ permissions: ['users:manage'] });
  });
  after(() => t.close());

  const as = (who: Who) => ({
    post: (url: string, payload?: object) =>
      t.inject({ method: 'POST', url, payload, headers: { cookie: who.cookie } }),
    patch: (url: string, payload: object) =>
      t.inject({ method: 'PATCH', url, payload, headers: { cookie: who.cookie } }),
    delete: (url: string) => t.inject({ method: 'DELETE', url, headers: { cookie: who.cookie } }),
    get: (url: string) => t.inject({ method: 'GET', url, headers: { cookie: who.cookie } }),
  });
  const roleId = async (name: string) => (await t.db('roles').where({ name }).first()).id as string;
  const refused = (res: { statusCode: number; json(): { code: string; message: string } }, naming: string) => {
    expect(res.statusCode, JSON.stringify(res.json())).to.equal(403);
    expect(res.json().code).to.equal('PERMISSION_ESCALATION');
    expect(res.json().message).to.contain(naming);
  };
  let n = 0;
  const email = () => `esc-${++n}-${Date.now()}@example.test`;

  it('a user manager cannot create a role with `*` or with a key they do not hold; nothing is written', async () => {
    const before = (await auditRows(t, 'role.create')).length;
    refused(await as(manager).post('/auth/roles', { name: 'everything', permissions: ['*'] }), '*');
    refused(
      await as(manager).post('/auth/roles', { name: 'auditors-2', permissions: ['users:manage', 'audit:read'] }),
      'audit:read',
    );
    expect(await t.db('roles').whereIn('name', ['everything', 'auditors-2'])).to.have.length(0);
    expect((await auditRows(t, 'role.create')).length).to.equal(before);
    // What they hold, they may give.
    expect(
      (await as(manager).post('/auth/roles', { name: 'co-managers', permissions: ['users:manage'] })).statusCode,
    ).to.equal(201);
  });

  it('a user manager cannot add a key they do not hold to a role', async () => {
    const role = (await as(manager).post('/auth/roles', { name: 'helpers', permissions: ['users:manage'] })).json();
    const res = await as(manager).patch(`/auth/roles/${role.id}`, { permissions: ['users:manage', 'settings:manage'] });
    refused(res, 'settings:manage');
    expect(res.json().field).to.equal('permissions');
    expect((await t.db('roles').where({ id: role.id }).first()).permissions).to.deep.equal(['users:manage']);
    expect(await auditRows(t, 'role.update', role.id)).to.have.length(0);
  });

  it('a user manager cannot give the admin role (or any role beyond their keys) to themself or to others', async () => {
    refused(await as(manager).patch(`/auth/users/${manager.id}`, { roles: ['admin'] }), 'admin');
    refused(await as(manager).patch(`/auth/users/${manager.id}`, { roles: ['editor'] }), 'objects:write');
    const other = await t.createUser({});
    refused(await as(manager).patch(`/auth/users/${other.id}`, { roles: ['admin'] }), 'admin');
    const created = await as(manager).post('/auth/users', {
      email: email(),
      password: 'a-good-password',
      roles: ['admin'],
    });
    refused(created, 'admin');
    expect(created.json().field).to.equal('roles');
    expect((await as(manager).get('/auth/me')).json().roles).to.not.include('admin');
    expect(await auditRows(t, 'user.update', manager.id)).to.have.length(0);
    expect(await auditRows(t, 'user.update', other.id)).to.have.length(0);
    // A role made of keys they hold is theirs to give.
    expect((await as(manager).post('/auth/users', { email: email(), roles: ['co-managers'] })).statusCode).to.equal(
      201,
    );
  });

  it('a user manager cannot edit, deactivate, delete or reset the administrator', async () => {
    const url = `/auth/users/${admin.id}`;
    refused(await as(manager).patch(url, { displayName: 'Mallory was here' }), '*');
    refused(await as(manager).patch(url, { email: 'mallory@example.test' }), '*');
    refused(await as(manager).patch(url, { active: false }), '*');
    refused(await as(manager).patch(url, { password: 'mallory-knows-it' }), '*');
    refused(await as(manager).patch(url, { roles: ['viewer'] }), '*');
    refused(await as(manager).post(`${url}/reset-password`, { password: 'mallory-knows-it' }), '*');
    refused(await as(manager).post(`${url}/reset-password`), '*');
    refused(await as(manager).delete(url), '*');
    expect((await as(admin).get('/auth/me')).statusCode).to.equal(200);
    expect((await login(t, admin.email, admin.password)).statusCode).to.equal(200);
    const row = await t.db('users').where({ id: admin.id }).first();
    expect(row).to.include({ email: admin.email, active: true });
    expect(await t.db('audit_log').where({ target_id: admin.id })).to.have.length(0);
  });

  it('nor any user holding a key the manager lacks (no account takeover by password reset)', async () => {
    const settingsAdmin = await t.createUser({ permissions: ['settings:manage'] });
    refused(
      await as(manager).post(`/auth/users/${settingsAdmin.id}/reset-password`, { password: 'mallory-knows-it' }),
      'settings:manage',
    );
    refused(
      await as(manager).patch(`/auth/users/${settingsAdmin.id}`, { email: 'mallory@example.test' }),
      'settings:manage',
    );
    refused(await as(manager).delete(`/auth/users/${settingsAdmin.id}`), 'settings:manage');
    expect((await login(t, settingsAdmin.email, settingsAdmin.password)).statusCode).to.equal(200);
    // Users within the manager's keys stay theirs to manage.
    const peer = await t.createUser({ roles: ['co-managers'] });
    expect(
      (await as(manager).post(`/auth/users/${peer.id}/reset-password`, { password: 'set-by-a-manager' })).statusCode,
    ).to.equal(200);
    expect((await as(manager).delete(`/auth/users/${peer.id}`)).statusCode).to.equal(204);
  });

  it('a user manager cannot change or delete a role holding more than they do, nor the admin role', async () => {
    const auditors = (await as(admin).post('/auth/roles', { name: 'auditors', permissions: ['audit:read'] })).json();
    refused(
      await as(manager).patch(`/auth/roles/${auditors.id}`, { description: 'renamed by a manager' }),
      'audit:read',
    );
    refused(await as(manager).patch(`/auth/roles/${auditors.id}`, { permissions: [] }), 'audit:read');
    refused(await as(manager).delete(`/auth/roles/${auditors.id}`), 'audit:read');
    const adminRole = await roleId('admin');
    const adminBefore = await t.db('roles').where({ id: adminRole }).first();
    refused(await as(manager).patch(`/auth/roles/${adminRole}`, { description: 'mine now' }), 'admin');
    refused(await as(manager).patch(`/auth/roles/${adminRole}`, { permissions: ['users:manage'] }), 'admin');
    expect(await t.db('roles').where({ id: adminRole }).first()).to.deep.equal(adminBefore);
    expect(await t.db('roles').where({ id: auditors.id }).first()).to.include({ description: '' });
    expect(await auditRows(t, 'role.update', auditors.id)).to.have.length(0);
    expect(await auditRows(t, 'role.delete', auditors.id)).to.have.length(0);
  });

  it('holding a broad key allows granting the finer keys it grants (the permission registry decides)', async () => {
    const writer = await t.createUser({ permissions: ['users:manage', 'objects:write'] });
    const role = await as(writer).post('/auth/roles', { name: 'widget-editors', permissions: ['widgets:edit'] });
    expect(role.statusCode).to.equal(201);
    expect((await as(writer).post('/auth/users', { email: email(), roles: ['widget-editors'] })).statusCode).to.equal(
      201,
    );
    // The finer key does not grant the broad one.
    const narrow = await t.createUser({ permissions: ['users:manage', 'widgets:edit'] });
    refused(
      await as(narrow).post('/auth/roles', { name: 'writers-2', permissions: ['objects:write'] }),
      'objects:write',
    );
  });

  it('a holder of `*` does all of it', async () => {
    const role = await as(admin).post('/auth/roles', { name: 'second-admins', permissions: ['*'] });
    expect(role.statusCode).to.equal(201);
    const second = await as(admin).post('/auth/users', {
      email: email(),
      password: 'a-good-password',
      roles: ['admin'],
    });
    expect(second.statusCode).to.equal(201);
    expect((await as(admin).patch(`/auth/users/${second.json().id}`, { displayName: 'Second' })).statusCode).to.equal(
      200,
    );
    expect(
      (await as(admin).patch(`/auth/roles/${await roleId('auditors')}`, { description: 'Read the audit log' }))
        .statusCode,
    ).to.equal(200);
    expect((await as(admin).delete(`/auth/users/${second.json().id}`)).statusCode).to.equal(204);
  });
});

describe('identity: the last holder of `*` is protected', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ plugins: ['identity'], extraPlugins: [broadKeysPlugin] });
  });
  after(() => t.close());

  it('a user manager without `*` does not count as the remaining administrator', async () => {
    const admin = await t.admin();
    await t.createUser({ permissions: ['users:manage'] });
    const api = (method: 'PATCH' | 'DELETE', url: string, payload?: object) =>
      t.inject({ method, url, payload, headers: { cookie: admin.cookie } });
    for (const [method, payload] of [
      ['PATCH', { active: false }],
      ['PATCH', { roles: ['viewer', 'editor'] }],
      ['DELETE', undefined],
    ] as const) {
      const res = await api(method, `/auth/users/${admin.id}`, payload);
      expect(res.statusCode, `${method} ${JSON.stringify(payload)}`).to.equal(409);
      expect(res.json().code).to.equal('LAST_ADMIN');
    }
    const adminRole = await t.db('roles').where({ name: 'admin' }).first();
    const strip = await api('PATCH', `/auth/roles/${adminRole.id}`, {
      permissions: ['users:manage', 'settings:manage', 'audit:read'],
    });
    expect(strip.statusCode).to.equal(409);
    expect(strip.json().code).to.equal('LAST_ADMIN');
    // Another holder of `*` (through a role of its own) makes the change possible.
    await t.createUser({ permissions: ['*'] });
    expect((await api('PATCH', `/auth/users/${admin.id}`, { roles: ['viewer'] })).statusCode).to.equal(200);
  });
});
