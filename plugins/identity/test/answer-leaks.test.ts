import { expect } from 'chai';
import { expectNoLeaks } from '../../../test/helpers/answer-leaks.ts';
import type { TestKernel } from '../../../test/helpers/kernel.ts';
import type { IdentityServices } from '../services/index.ts';
import { login, startIdentity } from './helpers.ts';

describe('identity: no internal column reaches a client', () => {
  let t: TestKernel;
  before(async () => {
    t = await startIdentity();
  });
  after(() => t.close());

  it('signs in, lists, reads and writes users and roles without a hash, a token or the password', async () => {
    const admin = await t.admin();
    const user = await t.createUser({ roles: ['viewer'] });
    const signedIn = await login(t, user.email, user.password);
    expect(signedIn.statusCode, signedIn.body).to.equal(200);
    const token = /cms_session=([^;]+)/.exec(String(signedIn.headers['set-cookie']))?.[1] ?? '';
    expect(token).not.to.equal('');
    const answers = [
      signedIn,
      await t.call('GET', '/auth/me', user),
      await t.call('GET', '/auth/users', admin),
      await t.call('GET', `/auth/users/${user.id}`, admin),
      await t.call('PATCH', `/auth/users/${user.id}`, admin, { displayName: 'Renamed' }),
      await t.call('GET', '/auth/roles', admin),
    ];
    for (const res of answers) expect(res.statusCode, res.body).to.equal(200);
    // The session token lives in the cookie only, never in a body.
    expectNoLeaks(answers, { values: [user.password, token] });
  });

  it('answers a user by its schema, whatever else the service returns', async () => {
    const admin = await t.admin();
    const user = await t.createUser({ roles: ['viewer'] });
    const users = t.services<IdentityServices>('identity').users;
    const get = users.get.bind(users);
    // As if the store started returning the row's credential columns.
    users.get = async (id) => ({ ...(await get(id)), password_hash: 'raw-password-hash', token_hash: 'raw-token' });
    try {
      const res = await t.call('GET', `/auth/users/${user.id}`, admin);
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.json().id).to.equal(user.id);
      expectNoLeaks(res, { values: ['raw-password-hash', 'raw-token'] });
    } finally {
      users.get = get;
    }
  });
});
