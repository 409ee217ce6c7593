import { expect } from 'chai';
import { ManualClock } from '../../../kernel/clock.ts';
import { cookieOf, sessionSetCookie, type TestKernel } from '../../../test/helpers/kernel.ts';
import { login, startIdentity, totp } from './helpers.ts';

const STEP = 30_000;

describe('identity: two-factor authentication', () => {
  let t: TestKernel;
  const clock = new ManualClock();
  before(async () => {
    // Lockout above the per-sign-in limit of 5, so both limits can be seen separately.
    t = await startIdentity({ clock, env: { LOGIN_LOCKOUT_MAX_FAILURES: '8' } });
  });
  after(() => t.close());

  const post = (url: string, payload?: object, cookie?: string) =>
    t.inject({ method: 'POST', url, payload, headers: cookie ? { cookie } : {} });

  /** Enrols a signed-in user; leaves the clock one step later so the next code is a new one. */
  async function enrol(cookie: string) {
    const setup = await post('/auth/mfa/setup', undefined, cookie);
    expect(setup.statusCode).to.equal(200);
    const { secret } = setup.json();
    const verified = await post('/auth/mfa/verify-setup', { code: totp(secret, clock) }, cookie);
    expect(verified.statusCode).to.equal(200);
    clock.advance(STEP);
    return { secret: secret as string, recoveryCodes: verified.json().recoveryCodes as string[] };
  }

  async function mfaToken(email: string, password: string): Promise<string> {
    const res = await login(t, email, password);
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.have.keys(['mfaRequired', 'mfaToken']);
    expect(res.json().mfaRequired).to.equal(true);
    expect(sessionSetCookie(res)).to.equal(undefined);
    return res.json().mfaToken;
  }

  it('GET /auth/mfa/status needs a session and reports 2FA off for a new user', async () => {
    expect((await t.inject({ method: 'GET', url: '/auth/mfa/status' })).statusCode).to.equal(401);
    const u = await t.createUser({ roles: ['viewer'] });
    const res = await t.inject({ method: 'GET', url: '/auth/mfa/status', headers: { cookie: u.cookie } });
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.deep.equal({ enabled: false, required: false, recoveryCodesRemaining: 0 });
  });

  it('setup returns the secret, an otpauth URL and a QR data URL, and stores the secret only encrypted', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    expect((await post('/auth/mfa/setup')).statusCode).to.equal(401);
    const res = await post('/auth/mfa/setup', undefined, u.cookie);
    expect(res.statusCode).to.equal(200);
    const body = res.json();
    expect(body.secret).to.match(/^[A-Z2-7]{32}$/);
    expect(body.otpauthUrl).to.match(/^otpauth:\/\/totp\//);
    expect(body.otpauthUrl).to.contain(`secret=${body.secret}`);
    expect(body.qrCodeDataUrl).to.match(/^data:image\/png;base64,/);
    const row = await t.db('identity_mfa').where({ user_id: u.id }).first();
    expect(row.pending_secret_sealed).to.match(/^v1:TOTP_ENCRYPTION_KEY:/);
    expect(JSON.stringify(row)).not.to.contain(body.secret);
    expect(row.enabled_at).to.equal(null);
    // Not enabled until verified: sign-in still gives a session directly.
    expect(sessionSetCookie(await login(t, u.email, u.password))).to.be.a('string');
  });

  it('verify-setup refuses a wrong code (400 naming code) and without setup (409)', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    const early = await post('/auth/mfa/verify-setup', { code: '123456' }, u.cookie);
    expect(early.statusCode).to.equal(409);
    expect(early.json().code).to.equal('MFA_SETUP_NOT_STARTED');
    const { secret } = (await post('/auth/mfa/setup', undefined, u.cookie)).json();
    const good = totp(secret, clock);
    const wrong = await post('/auth/mfa/verify-setup', { code: good === '000000' ? '111111' : '000000' }, u.cookie);
    expect(wrong.statusCode).to.equal(400);
    expect(wrong.json().field).to.equal('code');
    expect((await post('/auth/mfa/verify-setup', {}, u.cookie)).json().field).to.equal('code');
  });

  it('verify-setup enables 2FA and returns ten single-use recovery codes, stored only as hashes', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    const { recoveryCodes } = await enrol(u.cookie);
    expect(recoveryCodes).to.have.length(10);
    expect(new Set(recoveryCodes).size).to.equal(10);
    const status = await t.inject({ method: 'GET', url: '/auth/mfa/status', headers: { cookie: u.cookie } });
    expect(status.json()).to.deep.equal({ enabled: true, required: false, recoveryCodesRemaining: 10 });
    const stored = await t.db('identity_recovery_codes').where({ user_id: u.id });
    expect(stored).to.have.length(10);
    for (const code of recoveryCodes) expect(JSON.stringify(stored)).not.to.contain(code);
    const row = await t.db('identity_mfa').where({ user_id: u.id }).first();
    expect(row.pending_secret_sealed).to.equal(null);
    expect(row.secret_sealed).to.match(/^v1:TOTP_ENCRYPTION_KEY:/);
    const again = await post('/auth/mfa/setup', undefined, u.cookie);
    expect(again.statusCode).to.equal(409);
    expect(again.json().code).to.equal('MFA_ALREADY_ENABLED');
  });

  it('login answers { mfaRequired, mfaToken } and the challenge with a TOTP code completes the session; the same code cannot be used twice', async () => {
    const u = await t.createUser({ roles: ['editor'] });
    const { secret } = await enrol(u.cookie);
    const token = await mfaToken(u.email, u.password);
    const code = totp(secret, clock);
    const res = await post('/auth/mfa/challenge', { mfaToken: token, code });
    expect(res.statusCode).to.equal(200);
    expect(res.json().user).to.include({ id: u.id, email: u.email });
    expect(res.json().user.permissions).to.include('objects:write');
    const raw = sessionSetCookie(res)!;
    expect(raw)
      .to.match(/HttpOnly/)
      .and.to.match(/SameSite=Lax/);
    expect(
      (await t.inject({ method: 'GET', url: '/auth/me', headers: { cookie: cookieOf(res) } })).statusCode,
    ).to.equal(200);
    // The pending sign-in is used up.
    expect((await post('/auth/mfa/challenge', { mfaToken: token, code })).statusCode).to.equal(401);
    // A replay of the same code on a new sign-in fails.
    const replay = await post('/auth/mfa/challenge', { mfaToken: await mfaToken(u.email, u.password), code });
    expect(replay.statusCode).to.equal(401);
    expect(replay.json().code).to.equal('MFA_CODE_INVALID');
  });

  it('the code that confirmed enrolment may complete the first sign-in, but only once', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    const { secret } = (await post('/auth/mfa/setup', undefined, u.cookie)).json();
    const code = totp(secret, clock);
    expect((await post('/auth/mfa/verify-setup', { code }, u.cookie)).statusCode).to.equal(200);
    expect(
      (await post('/auth/mfa/challenge', { mfaToken: await mfaToken(u.email, u.password), code })).statusCode,
    ).to.equal(200);
    expect(
      (await post('/auth/mfa/challenge', { mfaToken: await mfaToken(u.email, u.password), code })).statusCode,
    ).to.equal(401);
  });

  it('a code from the previous step is still accepted (window of one step), an older one is not', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    const { secret } = await enrol(u.cookie);
    const old = totp(secret, clock);
    clock.advance(STEP);
    expect(
      (await post('/auth/mfa/challenge', { mfaToken: await mfaToken(u.email, u.password), code: old })).statusCode,
    ).to.equal(200);
    const older = totp(secret, clock);
    clock.advance(3 * STEP);
    expect(
      (await post('/auth/mfa/challenge', { mfaToken: await mfaToken(u.email, u.password), code: older })).statusCode,
    ).to.equal(401);
  });

  it('a recovery code completes the session once; replayed, it fails', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    const { recoveryCodes } = await enrol(u.cookie);
    const ok = await post('/auth/mfa/challenge', {
      mfaToken: await mfaToken(u.email, u.password),
      code: recoveryCodes[3].toUpperCase(),
    });
    expect(ok.statusCode).to.equal(200);
    expect(sessionSetCookie(ok)).to.be.a('string');
    const replay = await post('/auth/mfa/challenge', {
      mfaToken: await mfaToken(u.email, u.password),
      code: recoveryCodes[3],
    });
    expect(replay.statusCode).to.equal(401);
    const status = await t.inject({ method: 'GET', url: '/auth/mfa/status', headers: { cookie: cookieOf(ok) } });
    expect(status.json().recoveryCodesRemaining).to.equal(9);
  });

  it("another user's recovery code does not work", async () => {
    const a = await t.createUser({ roles: ['viewer'] });
    const b = await t.createUser({ roles: ['viewer'] });
    const codesOfA = (await enrol(a.cookie)).recoveryCodes;
    await enrol(b.cookie);
    expect(
      (await post('/auth/mfa/challenge', { mfaToken: await mfaToken(b.email, b.password), code: codesOfA[0] }))
        .statusCode,
    ).to.equal(401);
  });

  it('an unknown or expired mfaToken answers 401', async () => {
    expect((await post('/auth/mfa/challenge', { mfaToken: 'made-up', code: '123456' })).statusCode).to.equal(401);
    const u = await t.createUser({ roles: ['viewer'] });
    const { secret } = await enrol(u.cookie);
    const token = await mfaToken(u.email, u.password);
    clock.advance(5 * 60_000 + 1000);
    const res = await post('/auth/mfa/challenge', { mfaToken: token, code: totp(secret, clock) });
    expect(res.statusCode).to.equal(401);
    expect(res.json().code).to.equal('MFA_TOKEN_INVALID');
  });

  it('five wrong codes for one sign-in answer 429 afterwards, even with the right code; wrong codes count towards the e-mail lockout', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    const { secret } = await enrol(u.cookie);
    const token = await mfaToken(u.email, u.password);
    const wrong = (c: string) => (c === '000000' ? '111111' : '000000');
    for (let i = 0; i < 5; i++) {
      const res = await post('/auth/mfa/challenge', { mfaToken: token, code: wrong(totp(secret, clock)) });
      expect(res.statusCode).to.equal(401);
    }
    const refused = await post('/auth/mfa/challenge', { mfaToken: token, code: totp(secret, clock) });
    expect(refused.statusCode).to.equal(429);
    expect(refused.json().code).to.equal('MFA_LOCKED');
    expect(refused.headers['retry-after']).to.be.a('string');
    // A new sign-in may try again; three more failures reach the e-mail lockout of 8.
    const second = await mfaToken(u.email, u.password);
    for (let i = 0; i < 3; i++)
      await post('/auth/mfa/challenge', { mfaToken: second, code: wrong(totp(secret, clock)) });
    const locked = await login(t, u.email, u.password);
    expect(locked.statusCode).to.equal(429);
    expect(locked.json().code).to.equal('LOGIN_LOCKED');
  });

  it('disable needs the password again: wrong password 401, right password turns 2FA off', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    await enrol(u.cookie);
    expect((await post('/auth/mfa/disable', { password: u.password })).statusCode).to.equal(401);
    const missing = await post('/auth/mfa/disable', {}, u.cookie);
    expect(missing.statusCode).to.equal(400);
    expect(missing.json().field).to.equal('password');
    const wrong = await post('/auth/mfa/disable', { password: 'not-my-password' }, u.cookie);
    expect(wrong.statusCode).to.equal(401);
    expect(wrong.json().code).to.equal('INVALID_PASSWORD');
    expect(
      (await t.inject({ method: 'GET', url: '/auth/mfa/status', headers: { cookie: u.cookie } })).json().enabled,
    ).to.equal(true);
    expect((await post('/auth/mfa/disable', { password: u.password }, u.cookie)).statusCode).to.equal(204);
    expect(
      (await t.inject({ method: 'GET', url: '/auth/mfa/status', headers: { cookie: u.cookie } })).json(),
    ).to.deep.equal({
      enabled: false,
      required: false,
      recoveryCodesRemaining: 0,
    });
    expect(await t.db('identity_recovery_codes').where({ user_id: u.id })).to.have.length(0);
    expect(sessionSetCookie(await login(t, u.email, u.password))).to.be.a('string');
    expect((await post('/auth/mfa/disable', { password: u.password }, u.cookie)).statusCode).to.equal(409);
  });

  it('second factor actions write no audit rows, and the secret appears nowhere but the setup answer', async () => {
    const before = (await t.db('audit_log').count<{ count: number }[]>({ count: '*' }))[0].count;
    const u = await t.createUser({ roles: ['viewer'] });
    const { secret } = await enrol(u.cookie);
    await post('/auth/mfa/challenge', { mfaToken: await mfaToken(u.email, u.password), code: totp(secret, clock) });
    await post('/auth/mfa/disable', { password: u.password }, u.cookie);
    expect((await t.db('audit_log').count<{ count: number }[]>({ count: '*' }))[0].count).to.equal(before);
  });
});

describe('identity: two-factor authentication required by role', () => {
  let t: TestKernel;
  let admin: { cookie: string };
  const clock = new ManualClock();
  before(async () => {
    t = await startIdentity({ clock });
    admin = await t.admin();
    const res = await t.inject({
      method: 'PUT',
      url: '/security-settings',
      headers: { cookie: admin.cookie },
      payload: { mfaRequiredRoles: ['editor'] },
    });
    expect(res.statusCode).to.equal(200);
  });
  after(() => t.close());

  const post = (url: string, payload?: object, cookie?: string) =>
    t.inject({ method: 'POST', url, payload, headers: cookie ? { cookie } : {} });

  it('a user of a required role without 2FA gets no session but an enrolment token; enrolment then starts the session', async () => {
    const u = await t.createUser({ roles: ['editor'] });
    const res = await login(t, u.email, u.password);
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.have.keys(['mfaEnrollmentRequired', 'enrollmentToken']);
    expect(sessionSetCookie(res)).to.equal(undefined);
    const enrollmentToken = res.json().enrollmentToken;

    const setup = await post('/auth/mfa/setup', { enrollmentToken });
    expect(setup.statusCode).to.equal(200);
    const { secret } = setup.json();
    const done = await post('/auth/mfa/verify-setup', { enrollmentToken, code: totp(secret, clock) });
    expect(done.statusCode).to.equal(200);
    expect(done.json().recoveryCodes).to.have.length(10);
    expect(done.json().user).to.include({ id: u.id });
    const cookie = cookieOf(done);
    const me = await t.inject({ method: 'GET', url: '/auth/me', headers: { cookie } });
    expect(me.statusCode).to.equal(200);
    const status = await t.inject({ method: 'GET', url: '/auth/mfa/status', headers: { cookie } });
    expect(status.json()).to.include({ enabled: true, required: true });

    // The token is used up; the next sign-in asks for the second factor.
    expect((await post('/auth/mfa/setup', { enrollmentToken })).statusCode).to.equal(401);
    clock.advance(STEP);
    const next = await login(t, u.email, u.password);
    expect(next.json().mfaRequired).to.equal(true);

    // It cannot be turned off while the role requires it.
    const disable = await post('/auth/mfa/disable', { password: u.password }, cookie);
    expect(disable.statusCode).to.equal(403);
    expect(disable.json().code).to.equal('MFA_REQUIRED');
  });

  it('a wrong code during enrolment leaves the user without a session', async () => {
    const u = await t.createUser({ roles: ['editor'] });
    const enrollmentToken = (await login(t, u.email, u.password)).json().enrollmentToken;
    const { secret } = (await post('/auth/mfa/setup', { enrollmentToken })).json();
    const good = totp(secret, clock);
    const res = await post('/auth/mfa/verify-setup', {
      enrollmentToken,
      code: good === '000000' ? '111111' : '000000',
    });
    expect(res.statusCode).to.equal(400);
    expect(sessionSetCookie(res)).to.equal(undefined);
  });

  it('an unknown enrolment token answers 401; an mfaToken is not an enrolment token', async () => {
    expect((await post('/auth/mfa/setup', { enrollmentToken: 'made-up' })).statusCode).to.equal(401);
    expect((await post('/auth/mfa/verify-setup', { enrollmentToken: 'made-up', code: '123456' })).statusCode).to.equal(
      401,
    );
  });

  it('users of other roles are not affected', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    const res = await login(t, u.email, u.password);
    expect(res.json().user).to.include({ id: u.id });
    expect(sessionSetCookie(res)).to.be.a('string');
  });

  it('turning the requirement off lets the user sign in without enrolment again', async () => {
    const u = await t.createUser({ roles: ['viewer'], permissions: ['objects:read'] });
    const role = (
      await t
        .db('user_roles as ur')
        .join('roles as r', 'r.id', 'ur.role_id')
        .where('ur.user_id', u.id)
        .whereNot('r.name', 'viewer')
        .first('r.name')
    ).name;
    await t.inject({
      method: 'PUT',
      url: '/security-settings',
      headers: { cookie: admin.cookie },
      payload: { mfaRequiredRoles: ['editor', role] },
    });
    expect((await login(t, u.email, u.password)).json().mfaEnrollmentRequired).to.equal(true);
    await t.inject({
      method: 'PUT',
      url: '/security-settings',
      headers: { cookie: admin.cookie },
      payload: { mfaRequiredRoles: ['editor'] },
    });
    expect(sessionSetCookie(await login(t, u.email, u.password))).to.be.a('string');
  });
});
