import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createKnex, type DatabaseHandle } from '../../kernel/database.ts';
import { migrationSets } from '../../kernel/kernel.ts';
import { discoverPlugins } from '../../kernel/loader.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { cookieOf, startTestKernel, type TestKernel } from '../helpers/kernel.ts';
import { totp } from '../../plugins/identity/test/helpers.ts';

// Two kernels on one database stand for two replicas behind a load balancer without sticky
// sessions: what one accepts, the other honours, and a limit counts once for both.
const PLUGINS = ['identity', 'gateway', 'content', 'data', 'client-api'];
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const LIMIT = 4;

/** A second handle on the same database: each kernel closes its own pool. */
function sameDatabase(handle: DatabaseHandle): DatabaseHandle {
  const db = createKnex(handle.url, 5);
  return { db, url: handle.url, close: () => db.destroy() };
}

/** Polls `check` every 20 ms until it is true; fails after `ms`. Returns how long it took. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not seen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - started;
}

for (const store of ['database', 'redis'] as const) {
  describe(`replicas: two kernels on one database share state (${store})`, () => {
    let database: DatabaseHandle;
    let a: TestKernel;
    let b: TestKernel;
    before(async () => {
      const all = await discoverPlugins();
      database = await createTestDatabase({ migrations: migrationSets(all.filter((p) => PLUGINS.includes(p.id))) });
      const env: Record<string, string> = {
        LOGIN_LOCKOUT_MAX_FAILURES: String(LIMIT),
        MFA_CHALLENGE_RATE_LIMIT_PER_MINUTE: String(LIMIT),
        ...(store === 'redis' ? { REDIS_URL, REDIS_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}:` } : {}),
      };
      a = await startTestKernel({ plugins: PLUGINS, env, database: sameDatabase(database) });
      b = await startTestKernel({ plugins: PLUGINS, env, database: sameDatabase(database) });
    });
    after(async () => {
      await a?.close();
      await b?.close();
      await database?.close();
    });

    const login = (t: TestKernel, email: string, password: string, remoteAddress = '127.0.0.1') =>
      t.inject({ method: 'POST', url: '/auth/login', payload: { email, password }, remoteAddress });

    it('says where the state lives', () => {
      expect(a.kernel.resolve('sharedState').state()).to.deep.equal({ store, reachable: true });
    });

    it('signs in on A, passes TOTP on B, works on A and B', async () => {
      const user = await a.createUser({ roles: ['admin'] });
      const setup = await a.call('POST', '/auth/mfa/setup', user);
      const { secret } = setup.json();
      expect(
        (await b.call('POST', '/auth/mfa/verify-setup', user, { code: totp(secret, b.clock) })).statusCode,
      ).to.equal(200);
      // A code of the next step: the one used for the enrolment is spent.
      await a.advanceClock(30_000);
      await b.advanceClock(30_000);
      const first = await login(a, user.email, user.password);
      expect(first.statusCode).to.equal(200);
      const { mfaToken } = first.json();
      const second = await b.inject({
        method: 'POST',
        url: '/auth/mfa/challenge',
        payload: { mfaToken, code: totp(secret, b.clock) },
      });
      expect(second.statusCode).to.equal(200);
      const cookie = cookieOf(second);
      for (const t of [a, b]) {
        const me = await t.inject({ method: 'GET', url: '/auth/me', headers: { cookie } });
        expect(me.statusCode).to.equal(200);
        expect(me.json().email).to.equal(user.email);
      }
      // The pending sign-in is used up on both.
      const again = await a.inject({
        method: 'POST',
        url: '/auth/mfa/challenge',
        payload: { mfaToken, code: totp(secret, a.clock) },
      });
      expect(again.statusCode).to.equal(401);
    });

    it('counts a lockout across both: failures on A and B lock the e-mail on both', async () => {
      const user = await a.createUser({});
      for (let i = 0; i < LIMIT; i++) {
        const res = await login(i % 2 ? b : a, user.email, 'wrong password', `10.0.1.${i}`);
        expect(res.statusCode).to.equal(401);
      }
      for (const t of [a, b]) {
        const locked = await login(t, user.email, user.password, '10.0.1.99');
        expect(locked.statusCode).to.equal(429);
        expect(locked.json().code).to.equal('LOGIN_LOCKED');
      }
    });

    it('counts a rate limit of N once across both', async () => {
      const address = '10.0.2.1';
      const challenge = (t: TestKernel) =>
        t.inject({
          method: 'POST',
          url: '/auth/mfa/challenge',
          payload: { mfaToken: 'x'.repeat(43), code: '000000' },
          remoteAddress: address,
        });
      const answers: number[] = [];
      for (let i = 0; i < LIMIT; i++) answers.push((await challenge(i % 2 ? b : a)).statusCode);
      expect(answers).to.not.include(429);
      expect((await challenge(a)).statusCode).to.equal(429);
      expect((await challenge(b)).statusCode).to.equal(429);
    });

    it('a settings change on A is seen by B within a second', async () => {
      const admin = await a.admin();
      const settingsOf = (t: TestKernel) =>
        t.services<{ settings: { stripHtmlComments(): Promise<boolean> } }>('content').settings;
      expect(await settingsOf(b).stripHtmlComments()).to.equal(false);
      const put = await a.call('PUT', '/cms-one/settings/strip-html-comments', admin, { enabled: true });
      expect(put.statusCode, put.body).to.be.oneOf([200, 204]);
      await within(1_000, async () => (await settingsOf(b).stripHtmlComments()) === true);
    });

    it('a gateway catalog change on A is seen by B within a second', async () => {
      const admin = await a.admin();
      const ep = await a.call('POST', '/api/v1/gateway/endpoints', admin, {
        name: `ep-${randomBytes(4).toString('hex')}`,
        baseUrl: 'http://127.0.0.1:9',
      });
      expect(ep.statusCode, ep.body).to.equal(201);
      const route = await a.call('POST', `/api/v1/gateway/endpoints/${ep.json().id}/routes`, admin, {
        method: 'GET',
        path: '/items',
      });
      expect(route.statusCode, route.body).to.equal(201);
      const routes = b.kernel.resolve('gatewayRoutes');
      // B has the endpoint in its catalog cache now.
      expect(await routes.findRoute(ep.json().id, route.json().id)).to.not.equal(undefined);
      const removed = await a.call('DELETE', `/api/v1/gateway/routes/${route.json().id}`, admin);
      expect(removed.statusCode, removed.body).to.equal(204);
      await within(1_000, async () => (await routes.findRoute(ep.json().id, route.json().id)) === undefined);
    });

    it("a website made on A is one of B's site roots within a second", async () => {
      const admin = await a.admin();
      const rootPath = `/r${randomBytes(4).toString('hex')}`;
      const ask = () =>
        b.inject({ method: 'GET', url: '/site-root', headers: { 'x-original-uri': `${rootPath}/about` } });
      expect((await ask()).statusCode).to.equal(403);
      const site = await a.call('POST', '/cms-one/websites', admin, {
        name: 'Replica site',
        rootPath,
        locales: ['en'],
      });
      expect(site.statusCode, site.body).to.equal(201);
      await within(1_000, async () => (await ask()).statusCode === 204);
    });

    it('an API client key revoked on A is refused by B within a second', async () => {
      const admin = await a.admin();
      const made = await a.call('POST', '/api/v1/gateway/clients', admin, {
        name: `client-${randomBytes(4).toString('hex')}`,
        authMode: 'key',
        scopes: [],
      });
      expect(made.statusCode, made.body).to.equal(201);
      const me = () =>
        b.inject({ method: 'GET', url: '/client/v1/me', headers: { authorization: `Bearer ${made.json().key}` } });
      // B has the key in its cache now.
      expect((await me()).statusCode).to.equal(200);
      const keyId = made.json().keys[0].id;
      const revoked = await a.call('DELETE', `/api/v1/gateway/clients/${made.json().id}/keys/${keyId}`, admin);
      expect(revoked.statusCode, revoked.body).to.equal(200);
      await within(1_000, async () => (await me()).statusCode === 401);
    });
  });
}
