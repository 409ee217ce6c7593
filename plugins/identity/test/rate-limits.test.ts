import { expect } from 'chai';
import { ManualClock } from '../../../kernel/clock.ts';
import type { TestKernel } from '../../../test/helpers/kernel.ts';
import { login, startIdentity } from './helpers.ts';

type Answer = Awaited<ReturnType<TestKernel['inject']>>;
const statuses = (answers: Answer[]) =>
  answers.reduce<Record<number, number>>((n, r) => {
    n[r.statusCode] = (n[r.statusCode] ?? 0) + 1;
    return n;
  }, {});

/**
 * Per-address limits on the public sign-in routes, beside the per-e-mail lockout: a flood of
 * made-up e-mails from one address is cut off before it reaches password hashing.
 */
describe('identity: per-address limits on sign-in routes', () => {
  describe('with the defaults', () => {
    let t: TestKernel;
    before(async () => {
      t = await startIdentity();
    });
    after(() => t.close());

    it('parallel logins with distinct e-mails from one address answer 429 with Retry-After beyond 30 a minute', async () => {
      const flood = await Promise.all(
        Array.from({ length: 45 }, (_, i) =>
          login(t, `flood-${i}@example.test`, 'guessing-a-password', '198.51.100.7'),
        ),
      );
      expect(statuses(flood)).to.deep.equal({ 401: 30, 429: 15 });
      for (const limited of flood.filter((r) => r.statusCode === 429)) {
        expect(limited.json().code).to.equal('RATE_LIMITED');
        expect(Number(limited.headers['retry-after'])).to.be.within(1, 60);
      }
      // The address stays limited even for a right password; another address is not affected.
      const u = await t.createUser({ roles: ['viewer'] });
      expect((await login(t, u.email, u.password, '198.51.100.7')).statusCode).to.equal(429);
      expect((await login(t, u.email, u.password, '198.51.100.8')).statusCode).to.equal(200);
    });

    it('parallel second-factor attempts from one address answer 429 beyond 30 a minute', async () => {
      const attempts = await Promise.all(
        Array.from({ length: 35 }, (_, i) =>
          t.inject({
            method: 'POST',
            url: '/auth/mfa/challenge',
            payload: { mfaToken: `made-up-${i}`, code: '123456' },
            remoteAddress: '198.51.100.9',
          }),
        ),
      );
      expect(statuses(attempts)).to.deep.equal({ 401: 30, 429: 5 });
      expect(Number(attempts.find((r) => r.statusCode === 429)!.headers['retry-after'])).to.be.within(1, 60);
    });
  });

  describe('configured through the plugin config', () => {
    let t: TestKernel;
    const clock = new ManualClock();
    before(async () => {
      t = await startIdentity({
        clock,
        env: {
          LOGIN_RATE_LIMIT_PER_MINUTE: '3',
          MFA_CHALLENGE_RATE_LIMIT_PER_MINUTE: '2',
          FORGOT_PASSWORD_RATE_LIMIT_PER_WINDOW: '2',
        },
      });
    });
    after(() => t.close());

    it('login: every attempt counts, in a minute from the first attempt per address, right passwords too', async () => {
      const u = await t.createUser({ roles: ['viewer'] });
      for (let i = 0; i < 3; i++)
        expect((await login(t, `nobody-${i}@example.test`, 'x-x-x-x-x', '192.0.2.1')).statusCode).to.equal(401);
      const limited = await login(t, u.email, u.password, '192.0.2.1');
      expect(limited.statusCode).to.equal(429);
      // The manual clock also moves with real time: the seconds left are the window's, give or take one.
      expect(Number(limited.headers['retry-after'])).to.be.within(59, 60);
      clock.advance(30_000);
      expect(Number((await login(t, u.email, u.password, '192.0.2.1')).headers['retry-after'])).to.be.within(29, 30);
      clock.advance(30_001);
      expect((await login(t, u.email, u.password, '192.0.2.1')).statusCode).to.equal(200);
    });

    it('second factor and forgot-password have limits of their own', async () => {
      const challenge = () =>
        t.inject({
          method: 'POST',
          url: '/auth/mfa/challenge',
          payload: { mfaToken: 'made-up', code: '123456' },
          remoteAddress: '192.0.2.2',
        });
      expect((await challenge()).statusCode).to.equal(401);
      expect((await challenge()).statusCode).to.equal(401);
      expect((await challenge()).statusCode).to.equal(429);
      const forgot = () =>
        t.inject({
          method: 'POST',
          url: '/auth/forgot-password',
          payload: { email: 'someone@example.test' },
          remoteAddress: '192.0.2.3',
        });
      expect((await forgot()).statusCode).to.equal(202);
      expect((await forgot()).statusCode).to.equal(202);
      const limited = await forgot();
      expect(limited.statusCode).to.equal(429);
      expect(Number(limited.headers['retry-after'])).to.be.within(1, 900);
      // Each route counts on its own: this address has not signed in yet.
      const u = await t.createUser({ roles: ['viewer'] });
      expect((await login(t, u.email, u.password, '192.0.2.2')).statusCode).to.equal(200);
    });
  });
});
