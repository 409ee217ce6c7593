import { expect } from 'chai';
import { cookieOf, startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import type { TestOidcProvider } from '../../../test/helpers/oidc-provider.ts';
import { configure, person, PUBLIC_BASE_URL, ssoSettings, ssoSignIn, startProvider } from './oidc-helpers.ts';

/**
 * With the gateway loaded (as in core-api and the all-in-one process), every request to the sign-in
 * provider goes through the gateway's outbound address policy: the provider on loopback works outside
 * production, and an issuer on a link-local or cloud metadata address is refused at once, naming the
 * field, instead of being fetched.
 */
describe('identity: requests to the sign-in provider follow the outbound address policy', () => {
  let t: TestKernel;
  let admin: TestUser;
  let provider: TestOidcProvider;
  before(async () => {
    provider = await startProvider();
    t = await startTestKernel({ plugins: ['identity', 'gateway'], env: { PUBLIC_BASE_URL } });
    admin = await t.admin();
  });
  after(async () => {
    await t.close();
    await provider.close();
  });

  it('a whole sign-in (discovery, token, keys) works through the policy', async () => {
    await configure(t, admin, ssoSettings(provider));
    const p = person(provider, { groups: ['cms-editors'] });
    const res = await ssoSignIn(t, provider, p.login);
    expect(res.statusCode, res.body).to.equal(302);
    const me = await t.call('GET', '/auth/me', { cookie: cookieOf(res) });
    expect(me.json()).to.include({ email: p.email });
  });

  it('an issuer on a link-local or metadata address answers 400 OUTBOUND_REFUSED naming issuer', async () => {
    for (const issuer of [
      'https://169.254.169.254/realms/x',
      'https://[::ffff:a9fe:a9fe]/realms/x',
      'https://[64:ff9b::a9fe:a9fe]/realms/x',
      'https://[fd00:ec2::254]/realms/x',
      'https://100.100.100.200/realms/x',
    ]) {
      const res = await t.call('PUT', '/oidc-settings', admin, { ...ssoSettings(provider), issuer });
      expect(res.statusCode, issuer).to.equal(400);
      expect(res.json(), issuer).to.include({ code: 'OUTBOUND_REFUSED', field: 'issuer' });
    }
  });
});
