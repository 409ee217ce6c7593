import { expect } from 'chai';
import { auditRows, cookieOf, mailbox, type TestKernel } from '../../../test/helpers/kernel.ts';
import { login, resetTokenFrom, startIdentity } from './helpers.ts';

describe('identity: user management', () => {
  let t: TestKernel;
  let admin: Awaited<ReturnType<TestKernel['admin']>>;
  before(async () => {
    t = await startIdentity();
    admin = await t.admin();
  });
  after(() => t.close());

  const as = (cookie: string) => ({
    get: (url: string) => t.inject({ method: 'GET', url, headers: { cookie } }),
    post: (url: string, payload?: object) => t.inject({ method: 'POST', url, payload, headers: { cookie } }),
    patch: (url: string, payload: object) => t.inject({ method: 'PATCH', url, payload, headers: { cookie } }),
    delete: (url: string) => t.inject({ method: 'DELETE', url, headers: { cookie } }),
  });
  const api = () => as(admin.cookie);
  let n = 0;
  const email = () => `person-${++n}-${Date.now()}@example.test`;

  it('answers 401 without a session and 403 without users:manage', async () => {
    expect((await t.inject({ method: 'GET', url: '/auth/users' })).statusCode).to.equal(401);
    const viewer = await t.createUser({ roles: ['viewer'] });
    const res = await as(viewer.cookie).get('/auth/users');
    expect(res.statusCode).to.equal(403);
    expect((await as(viewer.cookie).post('/auth/users', { email: email(), roles: [] })).statusCode).to.equal(403);
    const manager = await t.createUser({ permissions: ['users:manage'] });
    expect((await as(manager.cookie).get('/auth/users')).statusCode).to.equal(200);
  });

  it('refuses an unknown or misspelt body field with 400 naming it, and changes nothing', async () => {
    const created = (
      await api().post('/auth/users', { email: email(), password: 'a-good-password', roles: ['viewer'] })
    ).json();
    const res = await api().patch(`/auth/users/${created.id}`, { displayName: 'Changed', rolez: ['admin'] });
    expect(res.statusCode).to.equal(400);
    expect(res.json()).to.include({ code: 'VALIDATION_FAILED', field: 'rolez' });
    expect((await api().get(`/auth/users/${created.id}`)).json()).to.include({ displayName: created.displayName });
    const login = await t.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: created.email, password: 'a-good-password', remember: true },
    });
    expect(login.json()).to.include({ field: 'remember' });
  });

  it('POST /auth/users creates a user (201) and audits user.create with only `after`, without the password', async () => {
    const address = email();
    const res = await api().post('/auth/users', {
      email: address,
      displayName: 'Pat',
      password: 'a-good-password',
      roles: ['editor'],
    });
    expect(res.statusCode).to.equal(201);
    const user = res.json();
    expect(user).to.include({ email: address, displayName: 'Pat', active: true, mfaEnabled: false });
    expect(user.roles).to.deep.equal(['editor']);
    expect((await login(t, address, 'a-good-password')).statusCode).to.equal(200);
    const [row] = await auditRows(t, 'user.create', user.id);
    expect(row).to.include({
      actor_type: 'user',
      actor_id: admin.id,
      actor_label: admin.email,
      target_type: 'user',
      target_label: address,
    });
    expect(row.before).to.equal(null);
    expect(row.after).to.deep.equal({ email: address, displayName: 'Pat', active: true, roles: ['editor'] });
    expect(JSON.stringify(row)).not.to.contain('a-good-password');
  });

  it('create refuses bad input with 400 naming the field, and writes no audit row', async () => {
    const count = async () => (await auditRows(t, 'user.create')).length;
    const before = await count();
    const cases: Array<[object, string]> = [
      [{ email: 'not-an-email', roles: [] }, 'email'],
      [{ roles: [] }, 'email'],
      [{ email: email() }, 'roles'],
      [{ email: email(), roles: ['no-such-role'] }, 'roles'],
      [{ email: email(), roles: [], password: 'short' }, 'password'],
      [{ email: email(), roles: [], active: 'maybe' }, 'active'],
    ];
    for (const [payload, field] of cases) {
      const res = await api().post('/auth/users', payload);
      expect(res.statusCode, JSON.stringify(payload)).to.equal(400);
      expect(res.json().field, JSON.stringify(payload)).to.equal(field);
    }
    const address = email();
    const same = await api().post('/auth/users', { email: address, roles: [], password: address.toUpperCase() });
    expect(same.statusCode).to.equal(400);
    expect(same.json()).to.include({ field: 'password', code: 'PASSWORD_POLICY' });
    expect(await count()).to.equal(before);
  });

  it('a taken e-mail (any case) answers 409 UNIQUE_VIOLATION naming email', async () => {
    const address = email();
    expect((await api().post('/auth/users', { email: address, roles: [] })).statusCode).to.equal(201);
    const res = await api().post('/auth/users', { email: address.toUpperCase(), roles: [] });
    expect(res.statusCode).to.equal(409);
    expect(res.json()).to.include({ code: 'UNIQUE_VIOLATION', field: 'email' });
  });

  it('GET /auth/users pages with a total and filters by q', async () => {
    const tag = `pager${Date.now()}`;
    for (let i = 0; i < 3; i++) await api().post('/auth/users', { email: `${tag}-${i}@example.test`, roles: [] });
    const page = await api().get(`/auth/users?limit=2&offset=0&q=${tag}`);
    expect(page.statusCode).to.equal(200);
    expect(page.json()).to.include({ total: 3, limit: 2, offset: 0 });
    expect(page.json().users.map((u: { email: string }) => u.email)).to.deep.equal([
      `${tag}-0@example.test`,
      `${tag}-1@example.test`,
    ]);
    const rest = await api().get(`/auth/users?limit=2&offset=2&q=${tag}`);
    expect(rest.json().users).to.have.length(1);
    const all = await api().get('/auth/users');
    expect(all.json().limit).to.equal(50);
    expect(all.json().total).to.be.at.least(4);
    const bad = await api().get('/auth/users?limit=0');
    expect(bad.statusCode).to.equal(400);
    expect(bad.json().field).to.equal('limit');
  });

  it('GET /auth/users/:id returns one user; unknown and malformed ids answer 404', async () => {
    const created = (await api().post('/auth/users', { email: email(), roles: ['viewer'] })).json();
    const res = await api().get(`/auth/users/${created.id}`);
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.deep.equal(created);
    expect((await api().get('/auth/users/00000000-0000-4000-8000-000000000000')).statusCode).to.equal(404);
    expect((await api().get('/auth/users/not-a-uuid')).statusCode).to.equal(404);
    expect(
      (await api().patch('/auth/users/00000000-0000-4000-8000-000000000000', { displayName: 'x' })).statusCode,
    ).to.equal(404);
    expect((await api().delete('/auth/users/00000000-0000-4000-8000-000000000000')).statusCode).to.equal(404);
  });

  it('PATCH audits only the changed allow-listed fields; a no-change PATCH writes no row', async () => {
    const created = (
      await api().post('/auth/users', { email: email(), displayName: 'Before', roles: ['viewer'] })
    ).json();
    const res = await api().patch(`/auth/users/${created.id}`, {
      displayName: 'After',
      roles: ['viewer', 'editor'],
      active: true,
    });
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.include({ displayName: 'After' });
    expect(res.json().roles).to.deep.equal(['editor', 'viewer']);
    const [row] = await auditRows(t, 'user.update', created.id);
    expect(row.before).to.deep.equal({ displayName: 'Before', roles: ['viewer'] });
    expect(row.after).to.deep.equal({ displayName: 'After', roles: ['editor', 'viewer'] });
    const same = await api().patch(`/auth/users/${created.id}`, { displayName: 'After', roles: ['editor', 'viewer'] });
    expect(same.statusCode).to.equal(200);
    expect(await auditRows(t, 'user.update', created.id)).to.have.length(1);
  });

  it('PATCH refuses a taken e-mail (409), an unknown role and a bad password (400), writing nothing', async () => {
    const a = (await api().post('/auth/users', { email: email(), roles: [] })).json();
    const b = (await api().post('/auth/users', { email: email(), roles: [] })).json();
    const taken = await api().patch(`/auth/users/${b.id}`, { email: a.email });
    expect(taken.statusCode).to.equal(409);
    expect(taken.json()).to.include({ code: 'UNIQUE_VIOLATION', field: 'email' });
    expect((await api().patch(`/auth/users/${b.id}`, { roles: ['nope'] })).json().field).to.equal('roles');
    const pw = await api().patch(`/auth/users/${b.id}`, { password: 'short' });
    expect(pw.statusCode).to.equal(400);
    expect(pw.json().field).to.equal('password');
    expect((await api().patch(`/auth/users/${b.id}`, { email: 'nope' })).json().field).to.equal('email');
    expect(await auditRows(t, 'user.update', b.id)).to.have.length(0);
  });

  it('changing the password revokes the sessions and is audited as `changed`', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    const res = await api().patch(`/auth/users/${u.id}`, { password: 'brand-new-password' });
    expect(res.statusCode).to.equal(200);
    expect((await as(u.cookie).get('/auth/me')).statusCode).to.equal(401);
    expect((await login(t, u.email, u.password)).statusCode).to.equal(401);
    expect((await login(t, u.email, 'brand-new-password')).statusCode).to.equal(200);
    const [row] = await auditRows(t, 'user.update', u.id);
    expect(row.before).to.deep.equal({ password: 'changed' });
    expect(row.after).to.deep.equal({ password: 'changed' });
  });

  it('deactivating a user revokes their sessions and stops sign-in; reactivating allows it again', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    expect((await api().patch(`/auth/users/${u.id}`, { active: false })).json().active).to.equal(false);
    expect((await as(u.cookie).get('/auth/me')).statusCode).to.equal(401);
    expect((await login(t, u.email, u.password)).statusCode).to.equal(401);
    expect(await t.db('sessions').where({ user_id: u.id }).whereNull('revoked_at')).to.have.length(0);
    await api().patch(`/auth/users/${u.id}`, { active: true });
    expect((await login(t, u.email, u.password)).statusCode).to.equal(200);
    const rows = await auditRows(t, 'user.update', u.id);
    expect(rows.map((r) => r.after)).to.deep.equal([{ active: false }, { active: true }]);
  });

  it('a role change applies to open sessions at once', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    expect((await as(u.cookie).get('/auth/users')).statusCode).to.equal(403);
    const role = (
      await api().post('/auth/roles', { name: `managers-${Date.now()}`, permissions: ['users:manage'] })
    ).json();
    await api().patch(`/auth/users/${u.id}`, { roles: ['viewer', role.name] });
    expect((await as(u.cookie).get('/auth/users')).statusCode).to.equal(200);
  });

  it('DELETE removes the user (204) with a user.delete row holding only `before`', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    const res = await api().delete(`/auth/users/${u.id}`);
    expect(res.statusCode).to.equal(204);
    expect((await api().get(`/auth/users/${u.id}`)).statusCode).to.equal(404);
    expect((await as(u.cookie).get('/auth/me')).statusCode).to.equal(401);
    const [row] = await auditRows(t, 'user.delete', u.id);
    expect(row.after).to.equal(null);
    expect(row.before).to.deep.equal({ email: u.email, displayName: u.email, active: true, roles: ['viewer'] });
  });

  it('forced reset with a password sets it, revokes sessions and audits user.reset_password without the password', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    const bad = await api().post(`/auth/users/${u.id}/reset-password`, { password: 'short' });
    expect(bad.statusCode).to.equal(400);
    expect(bad.json().field).to.equal('password');
    expect(await auditRows(t, 'user.reset_password', u.id)).to.have.length(0);
    const res = await api().post(`/auth/users/${u.id}/reset-password`, { password: 'set-by-the-admin' });
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.deep.equal({ method: 'password' });
    expect((await as(u.cookie).get('/auth/me')).statusCode).to.equal(401);
    expect((await login(t, u.email, u.password)).statusCode).to.equal(401);
    expect((await login(t, u.email, 'set-by-the-admin')).statusCode).to.equal(200);
    const [row] = await auditRows(t, 'user.reset_password', u.id);
    expect(row.after).to.deep.equal({ password: 'changed', method: 'password' });
    expect(JSON.stringify(row)).not.to.contain('set-by-the-admin');
  });

  it('forced reset without a password clears it, revokes sessions and e-mails a reset link that works', async () => {
    const box = mailbox(t);
    try {
      const u = await t.createUser({ roles: ['viewer'] });
      const res = await api().post(`/auth/users/${u.id}/reset-password`);
      expect(res.statusCode).to.equal(200);
      expect(res.json()).to.deep.equal({ method: 'email', mailSent: true });
      expect((await as(u.cookie).get('/auth/me')).statusCode).to.equal(401);
      expect((await login(t, u.email, u.password)).statusCode).to.equal(401);
      const mail = await box.next(u.email);
      expect(mail.text).to.contain('http://localhost:3000/reset-password?token=');
      const reset = await t.inject({
        method: 'POST',
        url: '/auth/reset-password',
        payload: { token: resetTokenFrom(mail), password: 'chosen-by-the-user' },
      });
      expect(reset.statusCode).to.equal(204);
      expect(cookieOf(await login(t, u.email, 'chosen-by-the-user'))).to.match(/^cms_session=/);
      const [row] = await auditRows(t, 'user.reset_password', u.id);
      expect(row.after).to.deep.equal({ password: 'changed', method: 'email' });
    } finally {
      box.stop();
    }
  });

  it('forced reset of an unknown user answers 404', async () => {
    expect(
      (
        await api().post('/auth/users/00000000-0000-4000-8000-000000000000/reset-password', {
          password: 'whatever-long',
        })
      ).statusCode,
    ).to.equal(404);
  });

  it('the password policy of the security settings applies to create, patch and forced reset', async () => {
    const put = await t.inject({
      method: 'PUT',
      url: '/security-settings',
      headers: { cookie: admin.cookie },
      payload: { passwordPolicy: { minLength: 12, requireThreeClasses: true } },
    });
    expect(put.statusCode).to.equal(200);
    try {
      const weak = await api().post('/auth/users', { email: email(), roles: [], password: 'alllowercaseletters' });
      expect(weak.statusCode).to.equal(400);
      expect(weak.json()).to.include({ field: 'password', code: 'PASSWORD_POLICY' });
      const shortish = await api().post('/auth/users', { email: email(), roles: [], password: 'Abc-12345' });
      expect(shortish.json().field).to.equal('password');
      const ok = await api().post('/auth/users', { email: email(), roles: [], password: 'Mixed-Case-123' });
      expect(ok.statusCode).to.equal(201);
      expect(
        (await api().patch(`/auth/users/${ok.json().id}`, { password: 'alllowercaseletters' })).json().field,
      ).to.equal('password');
      expect(
        (await api().post(`/auth/users/${ok.json().id}/reset-password`, { password: 'alllowercaseletters' })).json()
          .field,
      ).to.equal('password');
    } finally {
      await t.inject({
        method: 'PUT',
        url: '/security-settings',
        headers: { cookie: admin.cookie },
        payload: { passwordPolicy: { minLength: 8, requireThreeClasses: false } },
      });
    }
  });
});

describe('identity: the last administrator is protected', () => {
  let t: TestKernel;
  before(async () => {
    t = await startIdentity();
  });
  after(() => t.close());

  it('refuses deactivating, demoting or deleting the only admin (409 LAST_ADMIN), and allows it once another exists', async () => {
    const admin = await t.admin();
    const api = (method: 'PATCH' | 'DELETE', url: string, payload?: object) =>
      t.inject({ method, url, payload, headers: { cookie: admin.cookie } });
    for (const [method, payload] of [
      ['PATCH', { active: false }],
      ['PATCH', { roles: ['viewer'] }],
      ['DELETE', undefined],
    ] as const) {
      const res = await api(method, `/auth/users/${admin.id}`, payload);
      expect(res.statusCode, `${method} ${JSON.stringify(payload)}`).to.equal(409);
      expect(res.json().code).to.equal('LAST_ADMIN');
    }
    const adminRole = await t.db('roles').where({ name: 'admin' }).first();
    const strip = await t.inject({
      method: 'PATCH',
      url: `/auth/roles/${adminRole.id}`,
      headers: { cookie: admin.cookie },
      payload: { permissions: ['objects:read'] },
    });
    expect(strip.statusCode).to.equal(409);
    expect(strip.json().code).to.equal('LAST_ADMIN');
    expect(await t.db('audit_log').whereIn('action', ['user.update', 'user.delete', 'role.update'])).to.have.length(0);
    expect((await t.inject({ method: 'GET', url: '/auth/me', headers: { cookie: admin.cookie } })).statusCode).to.equal(
      200,
    );

    // A second holder of `*` (through a custom role) makes the change possible.
    await t.createUser({ permissions: ['*'] });
    expect((await api('PATCH', `/auth/users/${admin.id}`, { roles: ['viewer'] })).statusCode).to.equal(200);
  });
});
