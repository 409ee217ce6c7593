import { expect } from 'chai';
import { ManualClock } from '../../../kernel/clock.ts';
import { auditRows, cookieOf, sessionSetCookie, type TestKernel } from '../../../test/helpers/kernel.ts';
import { captureWarnings, login, startIdentity } from './helpers.ts';

describe('identity: sign-in, session, logout', () => {
  let t: TestKernel;
  const clock = new ManualClock();
  before(async () => {
    t = await startIdentity({ clock, env: { LOGIN_LOCKOUT_MAX_FAILURES: '3', LOGIN_LOCKOUT_WINDOW_SECONDS: '60' } });
  });
  after(() => t.close());

  it('POST /auth/login sets cms_session (HttpOnly, SameSite=Lax, Path=/, not Secure outside production) and returns the user', async () => {
    const u = await t.createUser({ roles: ['editor'] });
    const res = await login(t, u.email, u.password);
    expect(res.statusCode).to.equal(200);
    const body = res.json();
    expect(body.user).to.include({ id: u.id, email: u.email, displayName: u.email });
    expect(body.user.permissions).to.have.members(['objects:read', 'objects:write']);
    const raw = sessionSetCookie(res)!;
    expect(raw).to.match(/HttpOnly/);
    expect(raw).to.match(/SameSite=Lax/);
    expect(raw).to.match(/Path=\//);
    expect(raw).not.to.match(/Secure/);
    const me = await t.inject({ method: 'GET', url: '/auth/me', headers: { cookie: cookieOf(res) } });
    expect(me.statusCode).to.equal(200);
    expect(me.json()).to.deep.equal({
      id: u.id,
      email: u.email,
      displayName: u.email,
      roles: ['editor'],
      permissions: ['objects:read', 'objects:write'],
    });
  });

  it('the e-mail is matched without regard to case and surrounding spaces', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    const res = await login(t, `  ${u.email.toUpperCase()} `, u.password);
    expect(res.statusCode).to.equal(200);
  });

  it('GET /auth/me expands the admin role to every declared key', async () => {
    const a = await t.admin();
    const res = await t.inject({ method: 'GET', url: '/auth/me', headers: { cookie: a.cookie } });
    expect(res.statusCode).to.equal(200);
    const all = t.kernel
      .resolve('permissions')
      .list()
      .map((p) => p.key);
    expect(res.json().permissions).to.include.members(all);
    expect(res.json().roles).to.deep.equal(['admin']);
  });

  it('GET /auth/me answers 401 without a cookie and with an unknown cookie', async () => {
    expect((await t.inject({ method: 'GET', url: '/auth/me' })).statusCode).to.equal(401);
    const res = await t.inject({ method: 'GET', url: '/auth/me', headers: { cookie: 'cms_session=not-a-real-token' } });
    expect(res.statusCode).to.equal(401);
    expect(res.json()).to.include({ code: 'UNAUTHENTICATED' });
  });

  it('a wrong password and an unknown e-mail answer the same generic 401, and the failure is logged with the user id', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    const warnings = captureWarnings(t);
    const wrong = await login(t, u.email, 'wrong-password');
    const unknown = await login(t, 'nobody-here@example.test', 'wrong-password');
    expect(wrong.statusCode).to.equal(401);
    expect(unknown.statusCode).to.equal(401);
    expect(wrong.json().message).to.equal(unknown.json().message);
    expect(wrong.json().code).to.equal('INVALID_CREDENTIALS');
    expect(sessionSetCookie(wrong)).to.equal(undefined);
    expect(warnings.some((w) => w.obj.userId === u.id && w.msg === 'sign-in failed')).to.equal(true);
    expect(warnings.some((w) => w.obj.userId === null && w.msg === 'sign-in failed')).to.equal(true);
    expect(JSON.stringify(warnings)).not.to.contain('wrong-password');
  });

  it('an inactive user cannot sign in, even with the right password', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    await t.db('users').where({ id: u.id }).update({ active: false });
    expect((await login(t, u.email, u.password)).statusCode).to.equal(401);
  });

  it('a password-less account cannot sign in', async () => {
    const a = await t.admin();
    const created = await t.inject({
      method: 'POST',
      url: '/auth/users',
      headers: { cookie: a.cookie },
      payload: { email: 'nopw@example.test', roles: ['viewer'] },
    });
    expect(created.statusCode).to.equal(201);
    expect((await login(t, 'nopw@example.test', '')).statusCode).to.equal(400);
    expect((await login(t, 'nopw@example.test', 'anything-at-all')).statusCode).to.equal(401);
  });

  it('bad login bodies answer 400 naming the field', async () => {
    const res = await t.inject({ method: 'POST', url: '/auth/login', payload: { email: 'a@b.c' } });
    expect(res.statusCode).to.equal(400);
    expect(res.json().field).to.equal('password');
    const long = await login(t, 'a@b.c', 'x'.repeat(2000));
    expect(long.statusCode).to.equal(400);
    expect(long.json().field).to.equal('password');
  });

  it('locks the e-mail (any case) after the configured failures with 429 + Retry-After, even with the right password, until the window passes', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    for (let i = 0; i < 3; i++)
      expect((await login(t, i === 1 ? u.email.toUpperCase() : u.email, 'nope-nope')).statusCode).to.equal(401);
    const locked = await login(t, u.email, u.password);
    expect(locked.statusCode).to.equal(429);
    expect(locked.json().code).to.equal('LOGIN_LOCKED');
    expect(Number(locked.headers['retry-after'])).to.be.within(55, 60);
    expect(sessionSetCookie(locked)).to.equal(undefined);
    clock.advance(30_000);
    const still = await login(t, u.email, u.password);
    expect(still.statusCode).to.equal(429);
    expect(Number(still.headers['retry-after'])).to.be.within(25, 30);
    clock.advance(31_000);
    expect((await login(t, u.email, u.password)).statusCode).to.equal(200);
  });

  it('the lockout of one e-mail does not affect another account', async () => {
    const a = await t.createUser({ roles: ['viewer'] });
    const b = await t.createUser({ roles: ['viewer'] });
    for (let i = 0; i < 3; i++) await login(t, a.email, 'nope-nope');
    expect((await login(t, a.email, a.password)).statusCode).to.equal(429);
    expect((await login(t, b.email, b.password)).statusCode).to.equal(200);
  });

  it('a successful sign-in clears the failure counter', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    for (let i = 0; i < 2; i++) await login(t, u.email, 'nope-nope');
    expect((await login(t, u.email, u.password)).statusCode).to.equal(200);
    for (let i = 0; i < 2; i++) expect((await login(t, u.email, 'nope-nope')).statusCode).to.equal(401);
    expect((await login(t, u.email, u.password)).statusCode).to.equal(200);
  });

  it('failures older than the window are forgotten', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    for (let i = 0; i < 2; i++) await login(t, u.email, 'nope-nope');
    clock.advance(61_000);
    await login(t, u.email, 'nope-nope');
    expect((await login(t, u.email, u.password)).statusCode).to.equal(200);
  });

  it('POST /auth/logout revokes the session and clears the cookie; the old cookie then answers 401', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    const cookie = cookieOf(await login(t, u.email, u.password));
    const res = await t.inject({ method: 'POST', url: '/auth/logout', headers: { cookie } });
    expect(res.statusCode).to.equal(204);
    const cleared = sessionSetCookie(res)!;
    expect(cleared).to.match(/^cms_session=;/);
    expect(cleared).to.match(/Expires=Thu, 01 Jan 1970/);
    expect((await t.inject({ method: 'GET', url: '/auth/me', headers: { cookie } })).statusCode).to.equal(401);
    expect((await t.inject({ method: 'POST', url: '/auth/logout', headers: { cookie } })).statusCode).to.equal(401);
    const revoked = await t.db('sessions').where({ user_id: u.id }).whereNotNull('revoked_at');
    expect(revoked).to.have.length(1);
  });

  it('logout ends only that session', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    const first = cookieOf(await login(t, u.email, u.password));
    const second = cookieOf(await login(t, u.email, u.password));
    await t.inject({ method: 'POST', url: '/auth/logout', headers: { cookie: first } });
    expect((await t.inject({ method: 'GET', url: '/auth/me', headers: { cookie: second } })).statusCode).to.equal(200);
  });

  it('sign-in and sign-out write no audit rows', async () => {
    const before = await t.db('audit_log').count<{ count: number }[]>({ count: '*' });
    const u = await t.createUser({ roles: ['viewer'] });
    const cookie = cookieOf(await login(t, u.email, u.password));
    await login(t, u.email, 'nope-nope');
    await t.inject({ method: 'POST', url: '/auth/logout', headers: { cookie } });
    const after = await t.db('audit_log').count<{ count: number }[]>({ count: '*' });
    expect(after[0].count).to.equal(before[0].count);
    expect(await auditRows(t, 'user.login')).to.have.length(0);
  });
});

describe('identity: session cookie in production', () => {
  let t: TestKernel;
  before(async () => {
    t = await startIdentity({ env: { NODE_ENV: 'production', TOTP_ENCRYPTION_KEY: 'a'.repeat(64) } });
  });
  after(() => t.close());

  it('sets Secure on cms_session', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    const res = await login(t, u.email, u.password);
    expect(res.statusCode).to.equal(200);
    expect(sessionSetCookie(res)).to.match(/; Secure/);
  });
});
