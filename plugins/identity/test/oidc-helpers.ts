import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { LightMyRequestResponse } from 'fastify';
import type { TestKernel, TestUser } from '../../../test/helpers/kernel.ts';
import { type ProviderAccount, startOidcProvider, type TestOidcProvider } from '../../../test/helpers/oidc-provider.ts';
import { startIdentity } from './helpers.ts';

/** The installation's public address in these tests; the provider sends browsers back to its callback. */
export const PUBLIC_BASE_URL = 'http://cms.test';
export const REDIRECT_URI = `${PUBLIC_BASE_URL}/auth/oidc/callback`;
export const CMS_CLIENT = { clientId: 'cms', clientSecret: 'cms-client-secret', redirectUris: [REDIRECT_URI] };
/** Another application registered at the same provider (its tokens carry another audience). */
export const OTHER_CLIENT = {
  clientId: 'other-app',
  clientSecret: 'other-secret',
  redirectUris: ['http://other.test/callback'],
};

/** A provider with the installation's client and another application's. */
export function startProvider(accounts: ProviderAccount[] = []): Promise<TestOidcProvider> {
  return startOidcProvider({ clients: [CMS_CLIENT, OTHER_CLIENT], accounts });
}

/** The identity plugin alone, its public address that of the tests' redirect URI. */
export function startSsoKernel(env: Record<string, string> = {}): Promise<TestKernel> {
  return startIdentity({ env: { PUBLIC_BASE_URL, ...env } });
}

/** The settings most tests use: groups mapped to roles, provisioning with `viewer`. */
export function ssoSettings(provider: TestOidcProvider, extra: Record<string, unknown> = {}) {
  return {
    enabled: true,
    issuer: provider.issuer,
    clientId: CMS_CLIENT.clientId,
    clientSecret: CMS_CLIENT.clientSecret,
    scopes: ['openid', 'email', 'profile', 'groups'],
    roleClaim: 'groups',
    roleMapping: { 'cms-editors': ['editor'], 'cms-admins': ['admin'] },
    provisionUsers: true,
    defaultRoles: ['viewer'],
    localLogin: 'all',
    ...extra,
  };
}

export async function configure(t: TestKernel, admin: TestUser, settings: Record<string, unknown>): Promise<void> {
  const res = await t.call('PUT', '/oidc-settings', admin, settings);
  expect(res.statusCode, res.body).to.equal(200);
}

/** A new person at the provider (unique login, e-mail and subject). */
export function person(provider: TestOidcProvider, account: Partial<ProviderAccount> = {}): ProviderAccount {
  const id = randomBytes(4).toString('hex');
  const created: ProviderAccount = {
    login: `p-${id}`,
    password: `pw-${id}`,
    email: `p-${id}@example.test`,
    emailVerified: true,
    name: `Person ${id}`,
    groups: [],
    ...account,
  };
  provider.accounts.set(created.login, created);
  return created;
}

export interface SsoAttempt {
  /** The answer of GET /auth/oidc/start. */
  start: LightMyRequestResponse;
  /** The state this browser holds in its cookie. */
  state: string;
  /** The nonce the start sent to the provider. */
  nonce: string;
  /** Where the provider sent the browser back (the callback URL with code and state). */
  callback: URL;
}

/** Starts a sign-in at the installation and signs in at the provider; stops before the callback. */
export async function reachCallback(
  t: TestKernel,
  provider: TestOidcProvider,
  login: string,
  opts: { returnTo?: string } = {},
): Promise<SsoAttempt> {
  const query = opts.returnTo === undefined ? '' : `?returnTo=${encodeURIComponent(opts.returnTo)}`;
  const start = await t.call('GET', `/auth/oidc/start${query}`, null);
  expect(start.statusCode, start.body).to.equal(302);
  const location = String(start.headers.location);
  const state = stateCookieOf(start);
  const nonce = new URL(location).searchParams.get('nonce') ?? '';
  const callback = await provider.browse(location, login, REDIRECT_URI);
  return { start, state, nonce, callback };
}

/** Delivers the provider's redirect to the installation's callback, as the browser would. */
export function deliver(
  t: TestKernel,
  attempt: Pick<SsoAttempt, 'callback' | 'state'>,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return t.call('GET', `${attempt.callback.pathname}${attempt.callback.search}`, null, undefined, {
    cookie: `cms_oidc_state=${attempt.state}`,
    ...headers,
  });
}

/** The whole browser flow: start, sign in at the provider, callback. */
export async function ssoSignIn(
  t: TestKernel,
  provider: TestOidcProvider,
  login: string,
  opts: { returnTo?: string } = {},
): Promise<LightMyRequestResponse> {
  return deliver(t, await reachCallback(t, provider, login, opts));
}

function stateCookieOf(res: LightMyRequestResponse): string {
  const header = res.headers['set-cookie'];
  const all = Array.isArray(header) ? header : header ? [header] : [];
  const raw = all.find((c) => c.startsWith('cms_oidc_state='));
  if (!raw) throw new Error(`no state cookie in ${res.statusCode} ${res.body}`);
  return raw.split(';')[0].slice('cms_oidc_state='.length);
}
