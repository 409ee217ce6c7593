import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { expect } from 'chai';
import type { Clock } from '../../../kernel/clock.ts';
import type { ClientApiServices } from '../services/index.ts';
import type { DatabaseHandle } from '../../../kernel/database.ts';
import { sameDatabase, sharedDatabase, startClientKernel, type ClientKernel } from './helpers.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A clock standing still: a client's window starts with its first counted request and never ends
 * during a test, so every answer says the whole minute is left.
 */
function stillClock(): Clock {
  const at = new Date();
  return { now: () => new Date(at) };
}

function expectRateHeaders(res: { headers: Record<string, unknown> }, limit: number, remaining: number): void {
  expect(res.headers['ratelimit-limit']).to.equal(String(limit));
  expect(res.headers['ratelimit-remaining']).to.equal(String(remaining));
  const reset = Number(res.headers['ratelimit-reset']);
  expect(reset).to.equal(60);
}

describe('client-api: per-client rate limits', () => {
  describe('in PostgreSQL (no REDIS_URL)', () => {
    let k: ClientKernel;
    before(async () => {
      k = await startClientKernel({ env: { CLIENT_DEFAULT_REQUESTS_PER_MINUTE: '4' }, clock: stillClock() });
    });
    after(() => k?.close());

    it('counts per client, puts the IETF headers on every answer and answers 429 with Retry-After beyond the limit', async () => {
      const a = await k.createClient({ limits: { requestsPerMinute: 3 } });
      const b = await k.createClient({});
      for (let i = 0; i < 3; i++) expectRateHeaders(await k.asClient(a.key, 'GET', '/client/v1/me'), 3, 2 - i);
      const refused = await k.asClient(a.key, 'GET', '/client/v1/me');
      expect(refused.statusCode).to.equal(429);
      expect(refused.headers['retry-after']).to.equal('60');
      expectRateHeaders(refused, 3, 0);
      // Another client has its own budget (the plugin default here).
      const other = await k.asClient(b.key, 'GET', '/client/v1/me');
      expect(other.statusCode).to.equal(200);
      expectRateHeaders(other, 4, 3);
      // Error answers count and carry the headers too.
      const missing = await k.asClient(b.key, 'GET', '/client/v1/data/Nothing');
      expect(missing.statusCode).to.equal(404);
      expectRateHeaders(missing, 4, 2);
    });
  });

  describe('in Redis (REDIS_URL): several gateway processes share one budget', () => {
    let database: DatabaseHandle;
    let one: ClientKernel;
    let two: ClientKernel;
    before(async () => {
      database = await sharedDatabase();
      const env = { REDIS_URL, REDIS_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}:` };
      const clock = stillClock();
      one = await startClientKernel({ env, clock, database: sameDatabase(database) });
      two = await startClientKernel({ env, clock, database: sameDatabase(database) });
    });
    after(async () => {
      await one?.close();
      await two?.close();
      await database?.close();
    });

    it('counts calls to both kernels against the one budget of the client', async () => {
      const { key } = await one.createClient({ limits: { requestsPerMinute: 4 } });
      const me = await one.asClient(key, 'GET', '/client/v1/me');
      expect(me.json().rateLimitStore).to.deep.equal({ store: 'redis', reachable: true });
      expectRateHeaders(me, 4, 3);
      expectRateHeaders(await two.asClient(key, 'GET', '/client/v1/me'), 4, 2);
      expectRateHeaders(await one.asClient(key, 'GET', '/client/v1/me'), 4, 1);
      expectRateHeaders(await two.asClient(key, 'GET', '/client/v1/me'), 4, 0);
      expect((await one.asClient(key, 'GET', '/client/v1/me')).statusCode).to.equal(429);
      expect((await two.asClient(key, 'GET', '/client/v1/me')).statusCode).to.equal(429);
    });
  });

  describe('Redis lost while serving', () => {
    let k: ClientKernel;
    let proxy: net.Server;
    const sockets = new Set<net.Socket>();
    before(async () => {
      // A TCP relay in front of Redis, so the test can cut the connection as an outage would.
      const target = new URL(REDIS_URL);
      proxy = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 6379), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('error', () => undefined);
          s.on('close', () => sockets.delete(s));
        }
        client.pipe(upstream).pipe(client);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const port = (proxy.address() as net.AddressInfo).port;
      k = await startClientKernel({
        env: {
          REDIS_URL: `redis://127.0.0.1:${port}`,
          REDIS_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}:`,
        },
        clock: stillClock(),
      });
    });
    after(async () => {
      await k?.close();
      for (const s of sockets) s.destroy();
      proxy?.close();
    });

    it('goes on answering from the in-process count once Redis stops answering', async () => {
      const { key } = await k.createClient({ limits: { requestsPerMinute: 3 } });
      const first = await k.asClient(key, 'GET', '/client/v1/me');
      expect(first.json().rateLimitStore).to.deep.equal({ store: 'redis', reachable: true });
      expectRateHeaders(first, 3, 2);
      proxy.close();
      for (const s of sockets) s.destroy();
      // Wait until the client noticed the closed connection (a close event away).
      const limiter = (k.t.kernel.pluginDeps('client-api').services as ClientApiServices).rateLimiter;
      for (let i = 0; i < 100 && limiter.state().reachable; i++) await new Promise((r) => setTimeout(r, 20));
      const during = await k.asClient(key, 'GET', '/client/v1/me');
      expect(during.statusCode).to.equal(200);
      expect(during.json().rateLimitStore).to.deep.equal({ store: 'redis', reachable: false });
      // The process-local count starts afresh: the budget is per process during the outage.
      expectRateHeaders(during, 3, 2);
      expect((await k.asClient(key, 'GET', '/client/v1/me')).statusCode).to.equal(200);
      expect((await k.asClient(key, 'GET', '/client/v1/me')).statusCode).to.equal(200);
      expect((await k.asClient(key, 'GET', '/client/v1/me')).statusCode).to.equal(429);
    });
  });

  describe('Redis unreachable', () => {
    let k: ClientKernel;
    before(async () => {
      // Port 1 on loopback: nothing listens, connections are refused at once.
      k = await startClientKernel({ env: { REDIS_URL: 'redis://127.0.0.1:1' }, clock: stillClock() });
    });
    after(() => k?.close());

    it('keeps answering, says the store is unreachable, and still limits each client in this process', async () => {
      const { key } = await k.createClient({ limits: { requestsPerMinute: 2 } });
      const me = await k.asClient(key, 'GET', '/client/v1/me');
      expect(me.statusCode).to.equal(200);
      expect(me.json().rateLimitStore).to.deep.equal({ store: 'redis', reachable: false });
      expectRateHeaders(me, 2, 1);
      expect((await k.asClient(key, 'GET', '/client/v1/me')).statusCode).to.equal(200);
      expect((await k.asClient(key, 'GET', '/client/v1/me')).statusCode).to.equal(429);
    });
  });
});
