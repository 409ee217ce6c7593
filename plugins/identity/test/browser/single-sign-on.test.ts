import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { BrowserContext } from 'playwright-core';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  sharedBrowserProduct,
  heading,
  signIn,
} from '../../../../test/helpers/browser.ts';
import type { TestUser } from '../../../../test/helpers/kernel.ts';
import { startOidcProvider, type TestOidcProvider } from '../../../../test/helpers/oidc-provider.ts';

/** A loopback address where nothing listens: a provider that is down. */
async function closedAddress(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/**
 * The provider sends the browser back to the redirect URI, which is built from the installation's
 * public address (`PUBLIC_BASE_URL`); the product under test listens on a loopback port instead, so
 * the browser context forwards that address to it, as the proxy in front of an installation would.
 */
async function forwardPublicAddress(context: BrowserContext, redirectUri: string, baseUrl: string): Promise<void> {
  const publicOrigin = new URL(redirectUri).origin;
  await context.route(`${publicOrigin}/**`, (route) => {
    const url = new URL(route.request().url());
    return route.fulfill({ status: 302, headers: { location: `${baseUrl}${url.pathname}${url.search}` } });
  });
}

describe('single sign-on in the browser: the settings screen and the sign-in button', function () {
  this.timeout(180_000);
  let p: BrowserProduct;
  let provider: TestOidcProvider;
  let admin: TestUser;
  let redirectUri: string;
  const suffix = Date.now().toString(36);
  const person = { login: `ada-${suffix}`, password: `pw-${suffix}`, email: `ada-${suffix}@example.test` };

  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.admin();
    redirectUri = (await p.t.call('GET', '/oidc-settings', admin)).json().redirectUri;
    provider = await startOidcProvider({
      clients: [{ clientId: 'cms-dashboard', clientSecret: 'dashboard-client-secret', redirectUris: [redirectUri] }],
      accounts: [{ ...person, emailVerified: true, name: 'Ada Lovelace', groups: ['cms-editors'] }],
    });
  });
  // Each test starts, and the product (shared with other test files) ends, with single sign-on off.
  const ssoOff = async () => {
    const res = await p.t.call('PUT', '/oidc-settings', admin, { enabled: false, localLogin: 'all' });
    expect(res.statusCode, res.body).to.equal(200);
  };
  beforeEach(ssoOff);
  after(async () => {
    if (admin) await ssoOff();
    await provider?.close();
  });

  it('configures SSO in the screen (a bad issuer refused on its field), signs out and signs in with the button', async () => {
    const { page, context, errors } = await p.page();
    await forwardPublicAddress(context, redirectUri, p.baseUrl);
    await signIn(page, admin, '/admin/single-sign-on');
    await heading(page, 'Single sign-on').waitFor();
    await page.getByText(redirectUri, { exact: true }).waitFor();
    // The product listens elsewhere than its public address: the screen says so.
    const notice = page.getByRole('note').filter({ hasText: 'PUBLIC_BASE_URL' });
    await notice.getByText(new URL(p.baseUrl).origin, { exact: false }).waitFor();
    await expectAccessible(page, 'single sign-on settings');

    // A provider that is down: the 400 lands on the issuer field, nothing is stored.
    await page.getByRole('switch', { name: 'Single sign-on is on' }).check();
    await page.getByLabel('Issuer').fill(await closedAddress());
    await page.getByLabel('Client id').fill('cms-dashboard');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/discovery document/).waitFor();
    expect(await page.getByLabel('Issuer').getAttribute('aria-invalid')).to.equal('true');
    expect((await p.t.call('GET', '/oidc-settings', admin)).json().enabled).to.equal(false);

    await page.getByLabel('Issuer').fill(provider.issuer);
    await page.getByLabel('New client secret').fill('dashboard-client-secret');
    const scopes = page.getByRole('combobox', { name: 'Scopes' });
    await scopes.click();
    await scopes.pressSequentially('groups');
    await scopes.press('Enter');
    await page.getByLabel('Role claim').fill('groups');
    await page.getByRole('button', { name: 'Add a mapping' }).click();
    const mapping = page.getByRole('group', { name: 'Mapping 1' });
    await mapping.getByLabel('Claim value').fill('cms-editors');
    await mapping.getByRole('combobox', { name: 'Roles' }).click();
    await page.getByRole('option', { name: 'editor', exact: true }).click();
    await page.getByRole('switch', { name: /Create an account at the first sign-in/ }).check();
    await page.getByRole('combobox', { name: 'Roles of a new account' }).click();
    await page.getByRole('option', { name: 'viewer', exact: true }).click();
    await page.getByRole('radio', { name: 'Administrators only (break-glass)' }).check();
    await page.getByLabel('Button label').fill('Sign in with Test IdP');
    await page.getByLabel('After signing in, go to').fill('/admin');
    await expectAccessible(page, 'single sign-on settings filled in');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Single sign-on settings saved').waitFor();
    await page.getByText('set', { exact: true }).waitFor();
    const saved = (await p.t.call('GET', '/oidc-settings', admin)).json();
    expect(saved).to.deep.include({
      enabled: true,
      issuer: provider.issuer,
      clientId: 'cms-dashboard',
      clientSecretSet: true,
      roleClaim: 'groups',
      roleMapping: { 'cms-editors': ['editor'] },
      provisionUsers: true,
      defaultRoles: ['viewer'],
      localLogin: 'admins',
      buttonLabel: 'Sign in with Test IdP',
    });
    expect(saved.scopes).to.include('groups');
    expect(JSON.stringify(saved)).not.to.contain('dashboard-client-secret');

    await page.getByRole('button', { name: /Account menu/ }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByText('or, for administrators, with a password').waitFor();
    await page.getByLabel('E-mail').waitFor();
    await expectAccessible(page, 'sign-in with single sign-on (break-glass)');

    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    // The provider's own login form.
    await page.locator('input[name="login"]').fill(person.login);
    await page.locator('input[name="password"]').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading(page, 'Dashboard').waitFor();
    expect(new URL(page.url()).pathname).to.equal('/admin');
    const me = (await page.evaluate(async () => (await fetch('/auth/me')).json())) as {
      email: string;
      roles: string[];
    };
    expect(me.email).to.equal(person.email);
    expect(me.roles).to.have.members(['editor', 'viewer']);
    // Chromium's own line for the one refused save (the issuer that was down), nothing else.
    expect(appErrors(errors)).to.deep.equal([
      'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
  });

  it('hides the password form when password sign-in is off for everyone (390 px)', async () => {
    const res = await p.t.call('PUT', '/oidc-settings', admin, {
      enabled: true,
      issuer: provider.issuer,
      clientId: 'cms-dashboard',
      clientSecret: 'dashboard-client-secret',
      localLogin: 'none',
      buttonLabel: 'Company login',
    });
    expect(res.statusCode, res.body).to.equal(200);
    const { page, errors } = await p.page('phone');
    await page.goto('/sign-in');
    await page.getByRole('link', { name: 'Company login' }).waitFor();
    await page.getByText('Password sign-in is off for this installation.').waitFor();
    expect(await page.getByLabel('E-mail').count()).to.equal(0);
    expect(await page.getByRole('button', { name: 'Sign in', exact: true }).count()).to.equal(0);
    const start = new URL((await page.getByRole('link', { name: 'Company login' }).getAttribute('href'))!, p.baseUrl);
    expect(start.pathname).to.equal('/auth/oidc/start');
    expect(start.searchParams.get('returnTo')).to.equal('/admin');
    await expectAccessible(page, 'sign-in with single sign-on only at 390 px');
    expect(appErrors(errors)).to.deep.equal([]);
  });
  it('shows a manager without every key the settings read only, and a user without users:manage nothing', async () => {
    const manager = await p.t.createUser({ permissions: ['users:manage'] });
    const { page, errors } = await p.page();
    await signIn(page, manager, '/admin/single-sign-on');
    await heading(page, 'Single sign-on').waitFor();
    await page.getByRole('note').filter({ hasText: 'Only an administrator who holds every permission' }).waitFor();
    expect(await page.getByRole('button', { name: 'Save' }).count()).to.equal(0);
    expect(await page.getByLabel('Issuer').isDisabled()).to.equal(true);
    await expectAccessible(page, 'single sign-on read only');
    expect(appErrors(errors)).to.deep.equal([]);

    const editor = await p.t.createUser({ permissions: ['objects:read'] });
    const other = await p.page();
    await signIn(other.page, editor, '/admin/single-sign-on');
    await other.page.getByRole('alert').filter({ hasText: 'Not allowed' }).waitFor();
    expect(appErrors(other.errors)).to.deep.equal([]);
  });
});
