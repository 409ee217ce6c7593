import { Type } from '@sinclair/typebox';
import { expect } from 'chai';
import { ManualClock } from '../../kernel/clock.ts';
import { definePlugin, type PluginManifest } from '../../kernel/plugin.ts';
import { MemoryRateLimitStore, type RouteRateLimit } from '../../kernel/rate-limit.ts';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';
import { ANY_JSON_ANSWER } from '../helpers/any-answer.ts';

const MINUTE = 60_000;

/** Routes declaring each kind of limit the kernel enforces (`config.rateLimit`). */
const limitedPlugin = definePlugin({
  id: 'test-rate-limits',
  processes: ['core-api'],
  needs: [],
  routes(app) {
    const shared: RouteRateLimit = { key: 'address', bucket: 'test:shared', windowMs: MINUTE, limit: 3 };
    app.get(
      '/t/shared/a',
      { config: { public: true, rateLimit: shared }, schema: { response: ANY_JSON_ANSWER } },
      async () => ({ ok: true }),
    );
    app.get(
      '/t/shared/b',
      { config: { public: true, rateLimit: shared }, schema: { response: ANY_JSON_ANSWER } },
      async () => ({ ok: true }),
    );
    app.get(
      '/t/own',
      {
        config: {
          public: true,
          rateLimit: { key: 'address', windowMs: MINUTE, limit: 2, message: 'Slow down', code: 'TEST_LIMITED' },
        },
        schema: { response: ANY_JSON_ANSWER },
      },
      async () => ({ ok: true }),
    );
    // The caller names itself in a header; no header, no count. Its limit is a function of the request.
    app.get(
      '/t/caller',
      {
        config: {
          public: true,
          rateLimit: {
            key: (request) => (typeof request.headers['x-caller'] === 'string' ? request.headers['x-caller'] : null),
            windowMs: MINUTE,
            limit: (request) => (request.headers['x-caller'] === 'big' ? 3 : 1),
            message: (limit) => `At most ${limit} a minute`,
          },
        },
        schema: { response: ANY_JSON_ANSWER },
      },
      async () => ({ ok: true }),
    );
    app.get(
      '/t/user',
      {
        config: { session: true, rateLimit: { key: 'user', windowMs: MINUTE, limit: 1 } },
        schema: { response: ANY_JSON_ANSWER },
      },
      async () => ({ ok: true }),
    );
    app.post(
      '/t/validated',
      {
        config: { public: true, rateLimit: { key: 'address', windowMs: MINUTE, limit: 1, hook: 'preHandler' } },
        schema: { response: ANY_JSON_ANSWER, body: Type.Object({ n: Type.Integer() }) },
      },
      async () => ({ ok: true }),
    );
  },
}) as PluginManifest;

// The same rules with the counts shared across processes (the default) and in this process only.
for (const store of ['shared', 'memory'] as const)
  describe(`kernel: rate limits declared on routes (config.rateLimit, RATE_LIMIT_STORE=${store})`, () => {
    let t: TestKernel;
    const clock = new ManualClock();
    before(async () => {
      t = await startTestKernel({
        plugins: [],
        extraPlugins: [limitedPlugin],
        clock,
        env: { RATE_LIMIT_STORE: store },
      });
    });
    after(() => t?.close());

    const get = (url: string, remoteAddress = '192.0.2.10', headers: Record<string, string> = {}) =>
      t.inject({ method: 'GET', url, remoteAddress, headers });

    it('counts per address in a window from the first request; 429 with Retry-After, headers on every answer', async () => {
      const address = '192.0.2.11';
      const first = await get('/t/own', address);
      expect(first.statusCode).to.equal(200);
      expect(first.headers).to.include({ 'ratelimit-limit': '2', 'ratelimit-remaining': '1', 'ratelimit-reset': '60' });
      clock.advance(15_000);
      expect((await get('/t/own', address)).headers['ratelimit-remaining']).to.equal('0');
      const refused = await get('/t/own', address);
      expect(refused.statusCode).to.equal(429);
      expect(refused.json()).to.include({ statusCode: 429, code: 'TEST_LIMITED', message: 'Slow down' });
      expect(refused.headers['retry-after']).to.be.oneOf(['45', '44']); // the manual clock runs with real time too
      expect(refused.headers).to.include({ 'ratelimit-limit': '2', 'ratelimit-remaining': '0' });
      expect((await get('/t/own', '192.0.2.12')).statusCode).to.equal(200);
      clock.advance(45_000); // the window of this address is over
      expect((await get('/t/own', address)).statusCode).to.equal(200);
    });

    it('routes naming one bucket share its count; a route without one counts alone', async () => {
      const address = '192.0.2.20';
      expect((await get('/t/shared/a', address)).statusCode).to.equal(200);
      expect((await get('/t/shared/b', address)).statusCode).to.equal(200);
      expect((await get('/t/shared/a', address)).statusCode).to.equal(200);
      const refused = await get('/t/shared/b', address);
      expect(refused.statusCode).to.equal(429);
      expect(refused.json().code).to.equal('RATE_LIMITED');
      expect((await get('/t/own', address)).statusCode).to.equal(200);
    });

    it('a key function decides who is counted (null: nobody), a limit function how much', async () => {
      for (let i = 0; i < 3; i++) {
        const uncounted = await get('/t/caller');
        expect(uncounted.statusCode).to.equal(200);
        expect(uncounted.headers['ratelimit-limit']).to.equal(undefined);
      }
      expect((await get('/t/caller', undefined, { 'x-caller': 'small' })).statusCode).to.equal(200);
      const refused = await get('/t/caller', undefined, { 'x-caller': 'small' });
      expect(refused.statusCode).to.equal(429);
      expect(refused.json().message).to.equal('At most 1 a minute');
      for (let i = 0; i < 3; i++)
        expect((await get('/t/caller', undefined, { 'x-caller': 'big' })).statusCode).to.equal(200);
      expect((await get('/t/caller', undefined, { 'x-caller': 'big' })).statusCode).to.equal(429);
    });

    it('counts per signed-in user, whatever the address', async () => {
      const one = await t.createUser({});
      const two = await t.createUser({});
      expect((await get('/t/user', '192.0.2.30', { cookie: one.cookie })).statusCode).to.equal(200);
      expect((await get('/t/user', '192.0.2.31', { cookie: one.cookie })).statusCode).to.equal(429);
      expect((await get('/t/user', '192.0.2.30', { cookie: two.cookie })).statusCode).to.equal(200);
      // Without a session the route answers 401 before anything is counted.
      expect((await get('/t/user', '192.0.2.30')).statusCode).to.equal(401);
    });

    it('hook preHandler: a body the schema refuses is not counted', async () => {
      const post = (payload: object) =>
        t.inject({ method: 'POST', url: '/t/validated', payload, remoteAddress: '192.0.2.40' });
      expect((await post({ n: 'x' })).statusCode).to.equal(400);
      expect((await post({ n: 1 })).statusCode).to.equal(200);
      expect((await post({ n: 2 })).statusCode).to.equal(429);
    });

    it('refuses to start with a declaration it cannot enforce, naming the route', async () => {
      const bad = definePlugin({
        id: 'test-bad-limit',
        processes: ['core-api'],
        needs: [],
        routes(app) {
          app.get(
            '/t/bad',
            {
              config: { public: true, rateLimit: { key: 'address', windowMs: 10, limit: 1 } },
              schema: { response: ANY_JSON_ANSWER },
            },
            () => ({}),
          );
        },
      }) as PluginManifest;
      let error: Error | undefined;
      await startTestKernel({ plugins: [], extraPlugins: [bad] }).then(
        (k) => k.close(),
        (err: Error) => {
          error = err;
        },
      );
      expect(error?.message).to.match(/route GET \/t\/bad: config\.rateLimit\.windowMs/);
    });
  });

describe('kernel: the memory rate-limit store', () => {
  it('forgets keys whose window is over without sweeping, and keeps those whose window is not', () => {
    let now = 1_000_000;
    const store = new MemoryRateLimitStore({ now: () => new Date(now) });
    expect(store.hit('b', 'early', MINUTE)).to.deep.equal({ count: 1, resetMs: MINUTE });
    now += 50_000;
    expect(store.hit('b', 'late', MINUTE).count).to.equal(1);
    now += 20_000; // a new generation: "early" is over, "late" still counts
    expect(store.hit('b', 'early', MINUTE)).to.deep.equal({ count: 1, resetMs: MINUTE });
    expect(store.hit('b', 'late', MINUTE)).to.deep.equal({ count: 2, resetMs: 40_000 });
    now += 3 * MINUTE;
    expect(store.hit('b', 'late', MINUTE)).to.deep.equal({ count: 1, resetMs: MINUTE });
    expect(store.hit('other', 'late', MINUTE).count).to.equal(1);
  });
});
