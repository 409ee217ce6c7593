import { expect } from 'chai';
import type { TestKernel, TestUser } from '../../../test/helpers/kernel.ts';
import type { TestOidcProvider } from '../../../test/helpers/oidc-provider.ts';
import {
  configure,
  deliver,
  person,
  reachCallback,
  ssoSettings,
  ssoSignIn,
  startProvider,
  startSsoKernel,
} from './oidc-helpers.ts';

describe('identity: single sign-on against hostile input', () => {
  let t: TestKernel;
  let admin: TestUser;
  let provider: TestOidcProvider;

  before(async () => {
    provider = await startProvider();
    t = await startSsoKernel({ OIDC_START_RATE_LIMIT_PER_MINUTE: '100' });
    admin = await t.admin();
    await configure(t, admin, ssoSettings(provider));
  });
  after(async () => {
    await t?.close();
    await provider?.close();
  });

  it('returnTo with dot segments that collapse to //host is refused (no open redirect after normalising)', async () => {
    for (const bad of ['/.//evil.example', '/a/..//evil.example', '/%2e//evil.example', '/..//evil.example/x?y=1']) {
      const res = await t.call('GET', `/auth/oidc/start?returnTo=${encodeURIComponent(bad)}`, null);
      expect(res.statusCode, `${bad}: ${res.body}`).to.equal(400);
      expect(res.json()).to.include({ code: 'RETURN_TO_INVALID', field: 'returnTo' });
    }
  });

  it('a returnTo with harmless dot segments still lands on the same installation', async () => {
    const p = person(provider);
    const res = await ssoSignIn(t, provider, p.login, { returnTo: '/a/./b/../pages' });
    expect(res.statusCode, res.body).to.equal(302);
    expect(res.headers.location).to.equal('/a/pages');
  });

  it('two sign-ins provisioning one e-mail at once make one account and one link', async () => {
    const p = person(provider);
    const first = await reachCallback(t, provider, p.login);
    const second = await reachCallback(t, provider, p.login);
    const answers = await Promise.all([deliver(t, first), deliver(t, second)]);
    expect(
      answers.map((a) => a.statusCode),
      answers.map((a) => a.body).join('\n'),
    ).to.deep.equal([302, 302]);
    const users = await t.db('users').whereRaw('lower(email) = lower(?)', [p.email!]);
    expect(users).to.have.length(1);
    expect(await t.db('identity_oidc_links').where({ user_id: users[0].id })).to.have.length(1);
  });

  it('an account stored long ago with another letter case is linked, not duplicated (no 500)', async () => {
    const p = person(provider);
    const old = await t.createUser({ email: p.email!.toUpperCase(), roles: ['viewer'] });
    const res = await ssoSignIn(t, provider, p.login);
    expect(res.statusCode, res.body).to.equal(302);
    const links = await t.db('identity_oidc_links').where({ user_id: old.id });
    expect(links).to.have.length(1);
    expect(await t.db('users').whereRaw('lower(email) = lower(?)', [p.email!])).to.have.length(1);
  });
});
