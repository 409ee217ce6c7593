import type { Clock } from './clock.ts';
import type { Logger } from './logger.ts';
import { MemoryRateLimitStore, type RateCount } from './rate-limit.ts';
import type { SharedState, SharedStateInfo } from './shared-state.ts';

type RedisClient = import('ioredis').Redis;

// A window starts at the key's first count (on the caller's clock, passed in, so every process and a
// test's clock agree) and the key expires a little after the window.
const HIT_SCRIPT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local by = tonumber(ARGV[3])
local start = tonumber(redis.call('HGET', KEYS[1], 's'))
if not start or now - start >= window then
  redis.call('HSET', KEYS[1], 's', now, 'c', by)
  redis.call('PEXPIRE', KEYS[1], window + 5000)
  return {by, now}
end
return {redis.call('HINCRBY', KEYS[1], 'c', by), start}`;

// Redis expires a value on its own clock; the stored `e` (the kernel clock's expiry) is what counts,
// so a test that moves the kernel clock sees the value expire. The margin keeps Redis from dropping
// it first when the clocks disagree a little.
const EXPIRY_MARGIN_MS = 5_000;

// What this process keeps at most while Redis is away; past it a new value is not kept (the sign-in
// it belongs to simply starts again).
const MAX_LOCAL_VALUES = 10_000;

interface Stored {
  v: unknown;
  e: number;
}

/**
 * Shared state in Redis (`REDIS_URL`). While Redis cannot answer, this process keeps its own values
 * and counts (fail open to a per-process budget, never to "unlimited" nor to "everyone refused"):
 * an outage of the optional store must not take the routes down. ioredis is loaded only here.
 */
export class RedisSharedState implements SharedState {
  private redis: RedisClient | undefined;
  private degraded = false;
  private readonly counts: MemoryRateLimitStore;
  private readonly values = new Map<string, Stored>();

  constructor(private readonly opts: { url: string; prefix: string; clock: Clock; log: Logger }) {
    this.counts = new MemoryRateLimitStore(opts.clock);
  }

  private now(): number {
    return this.opts.clock.now().getTime();
  }

  /** Connects, waiting briefly for the first connection so the first requests already share. */
  async ready(timeoutMs = 1_000): Promise<void> {
    if (!this.redis) {
      const { Redis } = await import('ioredis');
      const redis = new Redis(this.opts.url, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        connectTimeout: 1_000,
        commandTimeout: 500,
        retryStrategy: (times) => Math.min(times * 250, 5_000),
      });
      redis.on('error', (err) => this.markDegraded(err));
      redis.on('ready', () => {
        if (this.degraded) this.opts.log.info('shared state: Redis reachable again');
        this.degraded = false;
      });
      this.redis = redis;
    }
    const redis = this.redis;
    if (redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      redis.once('ready', done);
      function done() {
        clearTimeout(timer);
        redis.off('ready', done);
        resolve();
      }
    });
  }

  state(): SharedStateInfo {
    return { store: 'redis', reachable: this.redis?.status === 'ready' };
  }

  /** The client while it answers; undefined sends the call to this process's fallback. */
  private live(): RedisClient | undefined {
    return this.redis?.status === 'ready' ? this.redis : undefined;
  }

  private async attempt<T>(shared: (redis: RedisClient) => Promise<T>, local: () => T): Promise<T> {
    const redis = this.live();
    if (!redis) return local();
    try {
      return await shared(redis);
    } catch (err) {
      this.markDegraded(err as Error);
      return local();
    }
  }

  async put(key: string, value: unknown, ttlMs: number): Promise<void> {
    const stored: Stored = { v: value, e: this.now() + ttlMs };
    await this.attempt(
      async (redis) =>
        void (await redis.set(this.opts.prefix + key, JSON.stringify(stored), 'PX', ttlMs + EXPIRY_MARGIN_MS)),
      () => {
        if (this.values.size >= MAX_LOCAL_VALUES) void this.purge();
        if (this.values.size < MAX_LOCAL_VALUES) this.values.set(key, stored);
      },
    );
  }

  async get<T>(key: string): Promise<T | null> {
    const raw = await this.attempt(
      (redis) => redis.get(this.opts.prefix + key),
      () => {
        const local = this.values.get(key);
        return local ? JSON.stringify(local) : null;
      },
    );
    return this.unexpired(raw);
  }

  async take<T>(key: string): Promise<T | null> {
    const raw = await this.attempt(
      (redis) => redis.getdel(this.opts.prefix + key),
      () => {
        const local = this.values.get(key);
        this.values.delete(key);
        return local ? JSON.stringify(local) : null;
      },
    );
    return this.unexpired(raw);
  }

  private unexpired<T>(raw: string | null): T | null {
    if (raw === null) return null;
    const stored = JSON.parse(raw) as Stored;
    return stored.e > this.now() ? (stored.v as T) : null;
  }

  async delete(key: string): Promise<void> {
    this.values.delete(key);
    await this.attempt(
      async (redis) => void (await redis.del(this.opts.prefix + key)),
      () => undefined,
    );
  }

  async hit(key: string, windowMs: number, by = 1): Promise<RateCount> {
    const now = this.now();
    return this.attempt(
      async (redis) => {
        const [count, start] = (await redis.eval(
          HIT_SCRIPT,
          1,
          this.opts.prefix + key,
          String(now),
          String(windowMs),
          String(by),
        )) as [number, number];
        return { count, resetMs: Number(start) + windowMs - now };
      },
      () => this.counts.add(`window:${windowMs}`, key, windowMs, by),
    );
  }

  async purge(): Promise<number> {
    const now = this.now();
    let dropped = 0;
    for (const [key, stored] of this.values)
      if (stored.e <= now) {
        this.values.delete(key);
        dropped++;
      }
    return dropped;
  }

  async close(): Promise<void> {
    this.redis?.disconnect();
  }

  private markDegraded(err: Error): void {
    if (this.degraded) return;
    this.degraded = true;
    this.opts.log.warn(
      { err: err.message },
      'shared state: Redis unreachable, keeping state in this process until it answers',
    );
  }
}
