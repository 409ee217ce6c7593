import { expect } from 'chai';
import { ManualClock } from '../../../kernel/clock.ts';
import {
  blockedOnLock,
  cookieOf,
  sessionSetCookie,
  type TestKernel,
  type TestUser,
} from '../../../test/helpers/kernel.ts';
import { login, startIdentity, totp } from './helpers.ts';

type Who = TestUser;

/**
 * Mandatory 2FA covers sessions that were already open: a user who now needs a second factor and
 * has none loses their sessions at once and is led to enrolment at the next sign-in.
 */
describe('identity: mandatory 2FA and sessions already open', () => {
  let t: TestKernel;
  let admin: Who;
  const clock = new ManualClock();
  before(async () => {
    t = await startIdentity({ clock });
  });
  after(() => t.close());
  // Each case starts from the settings as the migration creates them, with an administrator of its own.
  beforeEach(async () => {
    await t.db('identity_security_settings').delete();
    await t.db('identity_security_settings').insert({ id: 1 });
    admin = await t.createUser({ roles: ['admin'] });
  });

  const me = (cookie: string) => t.inject({ method: 'GET', url: '/auth/me', headers: { cookie } });
  const put = (payload: object) =>
    t.inject({ method: 'PUT', url: '/security-settings', headers: { cookie: admin.cookie }, payload });
  const post = (url: string, payload: object | undefined, cookie: string) =>
    t.inject({ method: 'POST', url, payload, headers: { cookie } });

  async function enrolled(roles: string[]): Promise<Who> {
    const u = await t.createUser({ roles });
    const { secret } = (await post('/auth/mfa/setup', undefined, u.cookie)).json();
    expect((await post('/auth/mfa/verify-setup', { code: totp(secret, clock) }, u.cookie)).statusCode).to.equal(200);
    return u;
  }

  it('making a role mandatory ends the sessions of its members without 2FA; their next sign-in leads to enrolment', async () => {
    const editor = await t.createUser({ roles: ['editor'] });
    const secondSession = cookieOf(await login(t, editor.email, editor.password));
    const enrolledEditor = await enrolled(['editor']);
    const viewer = await t.createUser({ roles: ['viewer'] });
    expect((await me(editor.cookie)).statusCode).to.equal(200);

    expect((await put({ mfaRequiredRoles: ['editor'] })).statusCode).to.equal(200);

    expect((await me(editor.cookie)).statusCode).to.equal(401);
    expect((await me(secondSession)).statusCode).to.equal(401);
    expect(
      (await t.inject({ method: 'POST', url: '/auth/mfa/setup', headers: { cookie: editor.cookie } })).statusCode,
    ).to.equal(401);
    expect(await t.db('sessions').where({ user_id: editor.id }).whereNull('revoked_at')).to.have.length(0);
    // Members who have 2FA, users of other roles and the administrator keep theirs.
    expect((await me(enrolledEditor.cookie)).statusCode).to.equal(200);
    expect((await me(viewer.cookie)).statusCode).to.equal(200);
    expect((await me(admin.cookie)).statusCode).to.equal(200);

    const again = await login(t, editor.email, editor.password);
    expect(again.json()).to.have.keys(['mfaEnrollmentRequired', 'enrollmentToken']);
    expect(sessionSetCookie(again)).to.equal(undefined);
  });

  it('giving a user a mandatory role ends their sessions when they have no 2FA', async () => {
    expect((await put({ mfaRequiredRoles: ['editor'] })).statusCode).to.equal(200);
    const viewer = await t.createUser({ roles: ['viewer'] });
    const enrolledViewer = await enrolled(['viewer']);
    for (const u of [viewer, enrolledViewer]) {
      const res = await t.inject({
        method: 'PATCH',
        url: `/auth/users/${u.id}`,
        headers: { cookie: admin.cookie },
        payload: { roles: ['viewer', 'editor'] },
      });
      expect(res.statusCode).to.equal(200);
    }
    expect((await me(viewer.cookie)).statusCode).to.equal(401);
    expect((await login(t, viewer.email, viewer.password)).json().mfaEnrollmentRequired).to.equal(true);
    expect((await me(enrolledViewer.cookie)).statusCode).to.equal(200);
    // Other changes to a member of a mandatory role do not end anything.
    const patched = await t.inject({
      method: 'PATCH',
      url: `/auth/users/${enrolledViewer.id}`,
      headers: { cookie: admin.cookie },
      payload: { displayName: 'Still here' },
    });
    expect(patched.statusCode).to.equal(200);
    expect((await me(enrolledViewer.cookie)).statusCode).to.equal(200);
  });

  it('saving the list again, unchanged, ends sessions that slipped past it (e.g. opened by an older version)', async () => {
    expect((await put({ mfaRequiredRoles: ['editor'] })).statusCode).to.equal(200);
    // The test helper opens a session directly, as sign-in before this rule did.
    const editor = await t.createUser({ roles: ['editor'] });
    expect((await me(editor.cookie)).statusCode).to.equal(200);
    expect((await put({ mfaRequiredRoles: ['editor'] })).statusCode).to.equal(200);
    expect((await me(editor.cookie)).statusCode).to.equal(401);
    // Other settings changes do not touch sessions.
    const other = await t.createUser({ roles: ['editor'] });
    expect((await put({ passwordPolicy: { minLength: 10 } })).statusCode).to.equal(200);
    expect((await me(other.cookie)).statusCode).to.equal(200);
  });

  it('an administrator without 2FA cannot make their own role mandatory (409); once enrolled they can, and keep their session', async () => {
    const refused = await put({ mfaRequiredRoles: ['editor', 'admin'] });
    expect(refused.statusCode).to.equal(409);
    expect(refused.json()).to.include({ code: 'MFA_NOT_ENABLED', field: 'mfaRequiredRoles' });
    expect(refused.json().message).to.contain('admin');
    expect((await t.db('identity_security_settings').first()).mfa_required_roles).to.deep.equal([]);
    expect((await me(admin.cookie)).statusCode).to.equal(200);

    const { secret } = (await post('/auth/mfa/setup', undefined, admin.cookie)).json();
    expect((await post('/auth/mfa/verify-setup', { code: totp(secret, clock) }, admin.cookie)).statusCode).to.equal(
      200,
    );
    const unenrolledAdmin = await t.createUser({ roles: ['admin'] });
    expect((await put({ mfaRequiredRoles: ['editor', 'admin'] })).statusCode).to.equal(200);
    expect((await me(admin.cookie)).statusCode).to.equal(200);
    expect((await me(unenrolledAdmin.cookie)).statusCode).to.equal(401);
  });

  it('a sign-in racing with a settings change waits for it and leads to enrolment', async () => {
    const viewer = await t.createUser({ roles: ['viewer'] });
    // An administrator's change in progress: the settings row is written but not yet committed.
    const trx = await t.db.transaction();
    try {
      await trx('identity_security_settings')
        .where({ id: 1 })
        .update({ mfa_required_roles: ['viewer'] });
      let settled = false;
      const signIn = login(t, viewer.email, viewer.password).finally(() => (settled = true));
      // The sign-in has reached the settings (or roles) and waits for the change's lock.
      await blockedOnLock(t.db);
      expect(settled, 'the sign-in waits for the change').to.equal(false);
      await trx.commit();
      const res = await signIn;
      expect(res.json()).to.have.keys(['mfaEnrollmentRequired', 'enrollmentToken']);
      expect(sessionSetCookie(res)).to.equal(undefined);
    } finally {
      if (!trx.isCompleted()) await trx.rollback();
    }
  });

  it('a sign-in racing with a role change waits for it and leads to enrolment', async () => {
    expect((await put({ mfaRequiredRoles: ['editor'] })).statusCode).to.equal(200);
    const viewer = await t.createUser({ roles: ['viewer'] });
    const editorRole = await t.db('roles').where({ name: 'editor' }).first();
    const trx = await t.db.transaction();
    try {
      await trx('users').where({ id: viewer.id }).update({ updated_at: new Date() });
      await trx('user_roles').insert({ user_id: viewer.id, role_id: editorRole.id });
      let settled = false;
      const signIn = login(t, viewer.email, viewer.password).finally(() => (settled = true));
      // The sign-in has reached the settings (or roles) and waits for the change's lock.
      await blockedOnLock(t.db);
      expect(settled, 'the sign-in waits for the change').to.equal(false);
      await trx.commit();
      expect((await signIn).json().mfaEnrollmentRequired).to.equal(true);
    } finally {
      if (!trx.isCompleted()) await trx.rollback();
    }
  });

  it('disabling 2FA racing with a settings change waits for it and is refused', async () => {
    const viewer = await enrolled(['viewer']);
    const trx = await t.db.transaction();
    try {
      await trx('identity_security_settings')
        .where({ id: 1 })
        .update({ mfa_required_roles: ['viewer'] });
      const disable = post('/auth/mfa/disable', { password: viewer.password }, viewer.cookie);
      await blockedOnLock(t.db);
      await trx.commit();
      const res = await disable;
      expect(res.statusCode).to.equal(403);
      expect(res.json().code).to.equal('MFA_REQUIRED');
      expect((await t.db('identity_mfa').where({ user_id: viewer.id }).first()).enabled_at).to.not.equal(null);
    } finally {
      if (!trx.isCompleted()) await trx.rollback();
    }
  });
});
