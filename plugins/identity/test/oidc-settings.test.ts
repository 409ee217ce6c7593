import { expect } from 'chai';
import { auditRows, cookieOf, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { freePort } from '../../../test/helpers/ports.ts';
import type { TestOidcProvider } from '../../../test/helpers/oidc-provider.ts';
import { captureWarnings, login } from './helpers.ts';
import {
  CMS_CLIENT,
  configure,
  person,
  ssoSettings,
  ssoSignIn,
  startProvider,
  startSsoKernel,
} from './oidc-helpers.ts';

describe('identity: single-sign-on settings, password sign-in rule and the start route', () => {
  let t: TestKernel;
  let admin: TestUser;
  let provider: TestOidcProvider;

  before(async () => {
    provider = await startProvider();
    t = await startSsoKernel({ OIDC_START_RATE_LIMIT_PER_MINUTE: '10' });
    admin = await t.admin();
  });
  after(async () => {
    await t.close();
    await provider.close();
  });
  beforeEach(async () => {
    await configure(t, admin, ssoSettings(provider));
    await t.advanceClock(61_000); // a rate-limit window of its own for each test
  });

  it('GET /auth/oidc tells a sign-in page whether single sign-on is on, its button and the password rule', async () => {
    await configure(t, admin, { buttonLabel: 'Sign in with Keycloak', localLogin: 'admins' });
    const on = await t.call('GET', '/auth/oidc', null);
    expect(on.statusCode).to.equal(200);
    expect(on.json()).to.deep.equal({
      enabled: true,
      buttonLabel: 'Sign in with Keycloak',
      startUrl: '/auth/oidc/start',
      localLogin: 'admins',
    });
    await configure(t, admin, { enabled: false });
    expect((await t.call('GET', '/auth/oidc', null)).json()).to.include({ enabled: false, localLogin: 'all' });
    const start = await t.call('GET', '/auth/oidc/start', null);
    expect(start.statusCode).to.equal(404);
    expect(start.json().code).to.equal('OIDC_DISABLED');
  });

  it('the client secret is sealed at rest, never returned, kept when blank, audited as changed', async () => {
    const res = await t.call('GET', '/oidc-settings', admin);
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.include({ clientSecretSet: true, issuer: provider.issuer, clientId: CMS_CLIENT.clientId });
    expect(res.json().redirectUri).to.equal('http://cms.test/auth/oidc/callback');
    expect(res.body).not.to.contain(CMS_CLIENT.clientSecret);
    const row = await t.db('identity_oidc_settings').where({ id: 1 }).first();
    expect(row.client_secret_sealed).to.match(/^v1:OIDC_SETTINGS_ENCRYPTION_KEY:/);
    expect(row.client_secret_sealed).not.to.contain(CMS_CLIENT.clientSecret);

    const kept = await t.call('PUT', '/oidc-settings', admin, { clientSecret: '', buttonLabel: 'Company login' });
    expect(kept.statusCode).to.equal(200);
    expect((await t.db('identity_oidc_settings').where({ id: 1 }).first()).client_secret_sealed).to.equal(
      row.client_secret_sealed,
    );
    const p = person(provider);
    expect((await ssoSignIn(t, provider, p.login)).statusCode).to.equal(302); // the kept secret still works

    await configure(t, admin, { clientSecret: 'rotated-secret-value' });
    const [audit] = (await auditRows(t, 'setting.oidc_update')).slice(-1);
    expect(audit.after).to.deep.equal({ clientSecret: 'changed' });
    expect(JSON.stringify(audit)).not.to.contain('rotated-secret-value');
    await configure(t, admin, { clientSecret: CMS_CLIENT.clientSecret });
  });

  it('reading needs users:manage; saving needs every key (*), since the provider decides who is whom', async () => {
    const manager = await t.createUser({ permissions: ['users:manage'] });
    const editor = await t.createUser({ roles: ['editor'] });
    expect((await t.call('GET', '/oidc-settings', null)).statusCode).to.equal(401);
    expect((await t.call('GET', '/oidc-settings', editor)).statusCode).to.equal(403);
    expect((await t.call('GET', '/oidc-settings', manager)).statusCode).to.equal(200);
    const put = await t.call('PUT', '/oidc-settings', manager, { provisionUsers: false });
    expect(put.statusCode).to.equal(403);
    expect(put.json().code).to.equal('PERMISSION_ESCALATION');
  });

  it('saving checks the issuer: discovery reachable and valid, https or loopback http, known roles, openid scope', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await t.call('PUT', '/oidc-settings', admin, { issuer: closed });
    expect(unreachable.statusCode).to.equal(400);
    expect(unreachable.json()).to.include({ code: 'OIDC_DISCOVERY_FAILED', field: 'issuer' });
    expect(unreachable.json().message).to.contain('discovery document');

    const notLoopback = await t.call('PUT', '/oidc-settings', admin, { issuer: 'http://idp.example.com/realms/x' });
    expect(notLoopback.statusCode).to.equal(400);
    expect(notLoopback.json()).to.include({ code: 'OIDC_ISSUER_INVALID', field: 'issuer' });

    const wrongIssuer = await t.call('PUT', '/oidc-settings', admin, { issuer: `${provider.issuer}/other` });
    expect(wrongIssuer.statusCode).to.equal(400);
    expect(wrongIssuer.json().field).to.equal('issuer');

    const role = await t.call('PUT', '/oidc-settings', admin, { roleMapping: { staff: ['no-such-role'] } });
    expect(role.statusCode).to.equal(400);
    expect(role.json()).to.include({ field: 'roleMapping' });
    expect(role.json().message).to.contain('no-such-role');

    const scopes = await t.call('PUT', '/oidc-settings', admin, { scopes: ['email'] });
    expect(scopes.statusCode).to.equal(400);
    expect(scopes.json().field).to.equal('scopes');

    const local = await t.call('PUT', '/oidc-settings', admin, { localLogin: 'nobody' });
    expect(local.statusCode).to.equal(400);
    expect(local.json().field).to.equal('localLogin');
    // Nothing of the refused saves was stored.
    expect((await t.call('GET', '/oidc-settings', admin)).json()).to.include({ issuer: provider.issuer });
  });

  it('localLogin admins keeps password sign-in for administrators only (break-glass); none for nobody', async () => {
    const editor = await t.createUser({ roles: ['editor'] });
    const breakGlass = await t.createUser({ roles: ['admin'] });
    await configure(t, admin, { localLogin: 'admins' });
    const warnings = captureWarnings(t);
    const refused = await login(t, editor.email, editor.password);
    expect(refused.statusCode).to.equal(403);
    expect(refused.json().code).to.equal('LOCAL_LOGIN_DISABLED');
    // Logged as a failed sign-in with the user id (spec), like any other.
    expect(warnings.some((w) => w.msg === 'sign-in failed' && w.obj.userId === editor.id)).to.equal(true);
    const wrongPassword = await login(t, editor.email, 'not-the-password');
    expect(wrongPassword.statusCode).to.equal(401);
    expect((await login(t, breakGlass.email, breakGlass.password)).statusCode).to.equal(200);

    await configure(t, admin, { localLogin: 'none' });
    const none = await login(t, breakGlass.email, breakGlass.password);
    expect(none.statusCode).to.equal(403);
    expect(none.json().code).to.equal('LOCAL_LOGIN_DISABLED');

    // The rule holds only while single sign-on is on.
    await configure(t, admin, { enabled: false });
    expect((await login(t, editor.email, editor.password)).statusCode).to.equal(200);
  });

  it('returnTo is limited to this installation’s own paths (no open redirect)', async () => {
    for (const bad of ['//evil.example/x', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)', 'x']) {
      const res = await t.call('GET', `/auth/oidc/start?returnTo=${encodeURIComponent(bad)}`, null);
      expect(res.statusCode, bad).to.equal(400);
      expect(res.json()).to.include({ code: 'RETURN_TO_INVALID', field: 'returnTo' });
    }
    const p = person(provider);
    const res = await ssoSignIn(t, provider, p.login, { returnTo: '/editor/pages/1#top' });
    expect(res.headers.location).to.equal('/editor/pages/1#top');
    await configure(t, admin, { dashboard_url: '/dashboard/' });
    const noReturn = await ssoSignIn(t, provider, p.login);
    expect(noReturn.headers.location).to.equal('/dashboard/');
    const me = await t.call('GET', '/auth/me', { cookie: cookieOf(noReturn) });
    expect(me.json().email).to.equal(p.email);
  });

  it('starting is limited per address (OIDC_START_RATE_LIMIT_PER_MINUTE): 429 with Retry-After', async () => {
    const start = () => t.inject({ method: 'GET', url: '/auth/oidc/start', remoteAddress: '192.0.2.77' });
    for (let i = 0; i < 10; i++) expect((await start()).statusCode).to.equal(302);
    const refused = await start();
    expect(refused.statusCode).to.equal(429);
    expect(Number(refused.headers['retry-after'])).to.be.within(1, 60);
    const elsewhere = await t.inject({ method: 'GET', url: '/auth/oidc/start', remoteAddress: '192.0.2.78' });
    expect(elsewhere.statusCode).to.equal(302);
  });
});

describe('identity: single sign-on keeps the last administrator', () => {
  let t: TestKernel;
  let provider: TestOidcProvider;
  before(async () => {
    provider = await startProvider();
    t = await startSsoKernel();
  });
  after(async () => {
    await t.close();
    await provider.close();
  });

  it('a claim cannot remove the last holder of *; other mapped roles still follow it', async () => {
    // The only administrator signs in through the provider; the seeding admin is deactivated.
    const seeding = await t.admin();
    await configure(t, seeding, ssoSettings(provider));
    const p = person(provider, { groups: ['cms-admins', 'cms-editors'] });
    const first = await ssoSignIn(t, provider, p.login);
    const me = (await t.call('GET', '/auth/me', { cookie: cookieOf(first) })).json();
    expect(me.roles).to.deep.equal(['admin', 'editor', 'viewer']);
    const off = await t.call('PATCH', `/auth/users/${seeding.id}`, { cookie: cookieOf(first) }, { active: false });
    expect(off.statusCode, off.body).to.equal(200);

    p.groups = [];
    const again = await ssoSignIn(t, provider, p.login);
    expect(again.statusCode).to.equal(302);
    const after = (await t.call('GET', '/auth/me', { cookie: cookieOf(again) })).json();
    expect(after.roles).to.deep.equal(['admin', 'viewer']);
    const [row] = (await auditRows(t, 'user.sso_roles', me.id)).slice(-1);
    expect(row.after).to.deep.equal({ roles: ['admin', 'viewer'] });
  });
});

describe('identity: single sign-on in production', () => {
  let t: TestKernel;
  let provider: TestOidcProvider;
  before(async () => {
    provider = await startProvider();
    const key = 'a'.repeat(64);
    t = await startSsoKernel({ NODE_ENV: 'production', OIDC_SETTINGS_ENCRYPTION_KEY: key, TOTP_ENCRYPTION_KEY: key });
  });
  after(async () => {
    await t.close();
    await provider.close();
  });

  it('an http:// issuer is refused, also on loopback: production needs https://', async () => {
    const res = await t.call('PUT', '/oidc-settings', await t.admin(), ssoSettings(provider));
    expect(res.statusCode).to.equal(400);
    expect(res.json()).to.include({ code: 'OIDC_ISSUER_INVALID', field: 'issuer' });
    expect(res.json().message).to.contain('https://');
    expect((await t.call('GET', '/auth/oidc', null)).json().enabled).to.equal(false);
  });
});
