import { expect } from 'chai';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { auditRows, cookieOf, sessionSetCookie, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import type { TestOidcProvider } from '../../../test/helpers/oidc-provider.ts';
import {
  CMS_CLIENT,
  configure,
  deliver,
  OTHER_CLIENT,
  person,
  reachCallback,
  ssoSettings,
  ssoSignIn,
  startProvider,
  startSsoKernel,
} from './oidc-helpers.ts';

describe('identity: single sign-on through a real OpenID provider', () => {
  let t: TestKernel;
  let admin: TestUser;
  let provider: TestOidcProvider;
  let otherIssuer: TestOidcProvider;

  before(async () => {
    provider = await startProvider();
    otherIssuer = await startProvider();
    t = await startSsoKernel();
    admin = await t.admin();
    await t.db('roles').insert({ name: 'sso-mfa-role', permissions: ['objects:read'] });
  });
  after(async () => {
    await t.close();
    await provider.close();
    await otherIssuer.close();
  });
  beforeEach(async () => {
    await configure(t, admin, ssoSettings(provider, { roleMapping: MAPPING }));
    await t.advanceClock(61_000); // a rate-limit window of its own for each test
  });

  const MAPPING = { 'cms-editors': ['editor'], 'cms-admins': ['admin'], 'mfa-group': ['sso-mfa-role'] };
  const me = async (res: { headers: Record<string, unknown>; body: string; statusCode: number }) =>
    (await t.call('GET', '/auth/me', { cookie: cookieOf(res as never) })).json();

  it('the first sign-in provisions the account with the default and mapped roles, in the cms_session cookie', async () => {
    const p = person(provider, { groups: ['cms-editors'], name: 'Ada Lovelace' });
    const res = await ssoSignIn(t, provider, p.login, { returnTo: '/pages?tab=drafts' });
    expect(res.statusCode, res.body).to.equal(302);
    expect(res.headers.location).to.equal('/pages?tab=drafts');
    const raw = sessionSetCookie(res)!;
    expect(raw).to.match(/HttpOnly/);
    expect(raw).to.match(/SameSite=Lax/);
    expect(raw).to.match(/Path=\//);
    const user = await me(res);
    expect(user).to.include({ email: p.email, displayName: 'Ada Lovelace' });
    expect(user.roles).to.deep.equal(['editor', 'viewer']);
    const [row] = await auditRows(t, 'user.sso_provision', user.id);
    expect(row.after).to.deep.include({ email: p.email, roles: ['editor', 'viewer'], subject: `sub-${p.login}` });
    expect(row.actor_label).to.equal('single sign-on');
  });

  it('a later sign-in follows the link by subject, even when the provider changed the e-mail to another account’s', async () => {
    const p = person(provider);
    const first = await me(await ssoSignIn(t, provider, p.login));
    const other = await t.createUser({ roles: ['viewer'] });
    p.email = other.email; // changed at the provider, verified there
    const again = await ssoSignIn(t, provider, p.login);
    expect(again.statusCode, again.body).to.equal(302);
    expect((await me(again)).id).to.equal(first.id);
    expect(await auditRows(t, 'user.sso_link', other.id)).to.have.length(0);
  });

  it('an existing account is linked by its verified e-mail once; another subject with that e-mail is refused', async () => {
    const existing = await t.createUser({ roles: ['viewer'] });
    const p = person(provider, { email: existing.email.toUpperCase() });
    const res = await ssoSignIn(t, provider, p.login);
    expect(res.statusCode, res.body).to.equal(302);
    expect((await me(res)).id).to.equal(existing.id);
    const [row] = await auditRows(t, 'user.sso_link', existing.id);
    expect(row.after).to.deep.include({ subject: `sub-${p.login}` });

    const impostor = person(provider, { email: existing.email });
    const refused = await ssoSignIn(t, provider, impostor.login);
    expect(refused.statusCode).to.equal(403);
    expect(refused.json().code).to.equal('OIDC_ACCOUNT_LINKED_ELSEWHERE');
    expect(sessionSetCookie(refused)).to.equal(undefined);
  });

  it('an unverified e-mail neither creates nor links an account', async () => {
    const existing = await t.createUser({ roles: ['viewer'] });
    const linking = person(provider, { email: existing.email, emailVerified: false });
    const refused = await ssoSignIn(t, provider, linking.login);
    expect(refused.statusCode).to.equal(403);
    expect(refused.json().code).to.equal('OIDC_EMAIL_UNVERIFIED');
    expect(await auditRows(t, 'user.sso_link', existing.id)).to.have.length(0);

    const fresh = person(provider, { emailVerified: false });
    const res = await ssoSignIn(t, provider, fresh.login);
    expect(res.statusCode).to.equal(403);
    expect(await t.db('users').whereRaw('lower(email) = lower(?)', [fresh.email!]).first()).to.equal(undefined);
  });

  it('mapped roles follow the claim at every sign-in; a role given by hand stays', async () => {
    const p = person(provider, { groups: ['cms-editors'] });
    const user = await me(await ssoSignIn(t, provider, p.login));
    expect(user.roles).to.deep.equal(['editor', 'viewer']);
    await t
      .db('roles')
      .insert({ name: `hand-${p.login}`, permissions: ['objects:read'] })
      .onConflict()
      .ignore();
    const hand = await t
      .db('roles')
      .where({ name: `hand-${p.login}` })
      .first('id');
    await t.db('user_roles').insert({ user_id: user.id, role_id: hand.id });

    p.groups = [];
    const removed = await me(await ssoSignIn(t, provider, p.login));
    expect(removed.roles).to.deep.equal([`hand-${p.login}`, 'viewer']);
    p.groups = ['cms-editors', 'unmapped-group'];
    const added = await me(await ssoSignIn(t, provider, p.login));
    expect(added.roles).to.deep.equal(['editor', `hand-${p.login}`, 'viewer']);

    const rows = await auditRows(t, 'user.sso_roles', user.id);
    expect(rows.map((r) => r.after.roles)).to.deep.equal([
      [`hand-${p.login}`, 'viewer'],
      ['editor', `hand-${p.login}`, 'viewer'],
    ]);
    // A sign-in that changes nothing writes no row.
    await ssoSignIn(t, provider, p.login);
    expect(await auditRows(t, 'user.sso_roles', user.id)).to.have.length(2);
  });

  it('a used state cannot be replayed, and a callback without the browser that started it is refused', async () => {
    const p = person(provider);
    const attempt = await reachCallback(t, provider, p.login);
    expect((await deliver(t, attempt)).statusCode).to.equal(302);
    const replay = await deliver(t, attempt);
    expect(replay.statusCode).to.equal(400);
    expect(replay.json()).to.include({ code: 'OIDC_STATE_INVALID', field: 'state' });
    expect(sessionSetCookie(replay)).to.equal(undefined);

    const other = await reachCallback(t, provider, p.login);
    const foreignBrowser = await deliver(t, { ...other, state: 'someone-elses-state' });
    expect(foreignBrowser.statusCode).to.equal(400);
    expect(foreignBrowser.json().code).to.equal('OIDC_STATE_INVALID');
  });

  it('an ID token replayed from an earlier sign-in (its nonce) is refused', async () => {
    const p = person(provider);
    expect((await ssoSignIn(t, provider, p.login)).statusCode).to.equal(302);
    const earlier = provider.issuedIdTokens.at(-1)!;
    const attempt = await reachCallback(t, provider, p.login);
    provider.swapNextIdToken(earlier);
    const res = await deliver(t, attempt);
    expect(res.statusCode).to.equal(401);
    expect(res.json().code).to.equal('OIDC_TOKEN_INVALID');
    expect(sessionSetCookie(res)).to.equal(undefined);
  });

  it('an ID token of another issuer or for another audience is refused, though correctly signed by its issuer', async () => {
    const p = person(provider);
    otherIssuer.accounts.set(p.login, p);

    const attempt = await reachCallback(t, provider, p.login);
    provider.swapNextIdToken(await otherIssuer.idTokenFor(CMS_CLIENT, p.login, attempt.nonce));
    const foreignIssuer = await deliver(t, attempt);
    expect(foreignIssuer.statusCode).to.equal(401);
    expect(foreignIssuer.json().code).to.equal('OIDC_TOKEN_INVALID');

    const second = await reachCallback(t, provider, p.login);
    provider.swapNextIdToken(await provider.idTokenFor(OTHER_CLIENT, p.login, second.nonce));
    const foreignAudience = await deliver(t, second);
    expect(foreignAudience.statusCode).to.equal(401);
    expect(foreignAudience.json().code).to.equal('OIDC_TOKEN_INVALID');
    expect(await t.db('users').whereRaw('lower(email) = lower(?)', [p.email!]).first()).to.equal(undefined);
  });

  it('an ID token whose signature is not made with a key of the provider’s JWKS is refused', async () => {
    const p = person(provider);
    const attempt = await reachCallback(t, provider, p.login);
    // Every claim right (issuer, audience, nonce, times); only the key is not the provider's.
    const genuine = await provider.idTokenFor(CMS_CLIENT, p.login, attempt.nonce);
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT(decodeJwt(genuine))
      .setProtectedHeader({ alg: 'RS256', kid: decodeProtectedHeader(genuine).kid })
      .sign(privateKey);
    provider.swapNextIdToken(forged);
    const res = await deliver(t, attempt);
    expect(res.statusCode).to.equal(401);
    expect(res.json().code).to.equal('OIDC_TOKEN_INVALID');
    expect(sessionSetCookie(res)).to.equal(undefined);
  });

  it('an expired authorization code is refused by the provider and no session is opened', async () => {
    const p = person(provider);
    const attempt = await reachCallback(t, provider, p.login);
    provider.expireCodes();
    const res = await deliver(t, attempt);
    expect(res.statusCode).to.equal(401);
    expect(res.json().code).to.equal('OIDC_REFUSED');
    expect(sessionSetCookie(res)).to.equal(undefined);
  });

  it('a deactivated account gets no session', async () => {
    const p = person(provider);
    const user = await me(await ssoSignIn(t, provider, p.login));
    const off = await t.call('PATCH', `/auth/users/${user.id}`, admin, { active: false });
    expect(off.statusCode).to.equal(200);
    const res = await ssoSignIn(t, provider, p.login);
    expect(res.statusCode).to.equal(403);
    expect(res.json().code).to.equal('ACCOUNT_INACTIVE');
    expect(sessionSetCookie(res)).to.equal(undefined);
  });

  it('a role with mandatory 2FA needs the provider to assert a second factor (amr)', async () => {
    const put = await t.call('PUT', '/security-settings', admin, { mfaRequiredRoles: ['sso-mfa-role'] });
    expect(put.statusCode, put.body).to.equal(200);
    try {
      const withPassword = person(provider, { groups: ['mfa-group'], amr: ['pwd'] });
      const refused = await ssoSignIn(t, provider, withPassword.login);
      expect(refused.statusCode).to.equal(403);
      expect(refused.json().code).to.equal('MFA_NOT_ASSERTED');
      expect(sessionSetCookie(refused)).to.equal(undefined);

      // An existing account with a password session and no second factor of its own.
      const existing = await t.createUser({ roles: ['viewer'] });
      const withMfa = person(provider, { email: existing.email, groups: ['mfa-group'], amr: ['pwd', 'mfa'] });
      const res = await ssoSignIn(t, provider, withMfa.login);
      expect(res.statusCode, res.body).to.equal(302);
      expect((await me(res)).roles).to.include('sso-mfa-role');
      // The claim gave it a role that requires 2FA: its password session ended, as a change by hand would.
      expect((await t.call('GET', '/auth/me', existing)).statusCode).to.equal(401);
    } finally {
      await t.call('PUT', '/security-settings', admin, { mfaRequiredRoles: [] });
    }
  });

  it('the provider down: a clear 502 (JSON, or an HTML page for a browser), never a 500', async () => {
    const down = await startProvider();
    const p = person(down);
    await configure(t, admin, ssoSettings(down));
    const attempt = await reachCallback(t, down, p.login);
    await down.close();
    const json = await deliver(t, attempt);
    expect(json.statusCode).to.equal(502);
    expect(json.json().code).to.equal('OIDC_PROVIDER_UNAVAILABLE');

    // Once the discovered metadata is old, starting needs the provider too.
    await t.advanceClock(11 * 60_000);
    const page = await t.call('GET', '/auth/oidc/start', null, undefined, { accept: 'text/html' });
    expect(page.statusCode).to.equal(502);
    expect(page.headers['content-type']).to.match(/^text\/html/);
    expect(page.body).to.contain('The sign-in provider is not available');
    // The error page runs nothing, loads nothing but its own styles and images, and is never framed.
    expect(page.headers['content-security-policy']).to.match(/^default-src 'none';/);
    expect(page.headers['content-security-policy']).to.contain("base-uri 'none'");
    expect(page.headers['content-security-policy']).to.contain("frame-ancestors 'none'");
    expect(page.headers['x-frame-options']).to.equal('DENY');
    expect(page.headers['x-content-type-options']).to.equal('nosniff');
  });
});
