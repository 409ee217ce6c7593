import { Redis } from 'ioredis';
import type { Clock, Logger } from '../../../kernel/index.ts';

export const WINDOW_MS = 60_000;

export interface RateVerdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (at least 1). */
  resetSeconds: number;
}

export interface RateStoreState {
  store: 'memory' | 'redis';
  reachable: boolean;
}

/** Fixed one-minute windows aligned on the clock, so every process agrees on where a window starts. */
function windowOf(nowMs: number): { start: number; resetSeconds: number } {
  const start = Math.floor(nowMs / WINDOW_MS) * WINDOW_MS;
  return { start, resetSeconds: Math.max(1, Math.ceil((start + WINDOW_MS - nowMs) / 1000)) };
}

function verdict(count: number, limit: number, resetSeconds: number): RateVerdict {
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds };
}

/** Counters in this process; also the fallback while the shared store is unreachable. */
export class MemoryCounters {
  private readonly counts = new Map<string, { start: number; count: number }>();

  constructor(private readonly clock: Clock) {}

  hit(clientId: string, limit: number): RateVerdict {
    const { start, resetSeconds } = windowOf(this.clock.now().getTime());
    let entry = this.counts.get(clientId);
    if (!entry || entry.start !== start) {
      if (this.counts.size > 50_000) this.prune(start);
      entry = { start, count: 0 };
      this.counts.set(clientId, entry);
    }
    entry.count++;
    return verdict(entry.count, limit, resetSeconds);
  }

  private prune(current: number): void {
    for (const [id, entry] of this.counts) if (entry.start !== current) this.counts.delete(id);
  }
}

// INCR and PEXPIRE in one step: a crash between the two can never leave a counter without expiry.
const HIT_SCRIPT = `local c = redis.call('INCR', KEYS[1]) if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return c`;

/**
 * Per-client request counters. With REDIS_URL the count lives in Redis so several gateway processes
 * share one budget per client. When Redis cannot answer, the hit is counted in this process instead
 * (fail open to a per-process budget, never to "unlimited" and never to "everyone refused"): the
 * counter store is an optional part, and its outage must not take the client surface down.
 */
export class ClientRateLimiter {
  private readonly memory: MemoryCounters;
  private readonly redis: Redis | undefined;
  private degraded = false;

  constructor(private readonly deps: { clock: Clock; log: Logger; redisUrl: string; prefix: string }) {
    this.memory = new MemoryCounters(deps.clock);
    if (deps.redisUrl) {
      this.redis = new Redis(deps.redisUrl, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        connectTimeout: 1_000,
        commandTimeout: 500,
        retryStrategy: (times) => Math.min(times * 250, 5_000),
      });
      this.redis.on('error', (err) => this.markDegraded(err));
      this.redis.on('ready', () => {
        if (this.degraded) deps.log.info('client rate limits: shared counter store reachable again');
        this.degraded = false;
      });
    }
  }

  /** Waits briefly for the first connection so the first requests already share the budget. */
  async ready(timeoutMs = 1_000): Promise<void> {
    const redis = this.redis;
    if (!redis || redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      redis.once('ready', done);
      function done() {
        clearTimeout(timer);
        redis?.off('ready', done);
        resolve();
      }
    });
  }

  state(): RateStoreState {
    if (!this.redis) return { store: 'memory', reachable: true };
    return { store: 'redis', reachable: this.redis.status === 'ready' };
  }

  /** Counts one request; in memory the verdict is immediate (no promise on the hot path). */
  hit(clientId: string, limit: number): RateVerdict | Promise<RateVerdict> {
    if (!this.redis || this.redis.status !== 'ready') return this.memory.hit(clientId, limit);
    return this.sharedHit(this.redis, clientId, limit);
  }

  private async sharedHit(redis: Redis, clientId: string, limit: number): Promise<RateVerdict> {
    const { start, resetSeconds } = windowOf(this.deps.clock.now().getTime());
    try {
      const count = (await redis.eval(
        HIT_SCRIPT,
        1,
        `${this.deps.prefix}${clientId}:${start}`,
        String(WINDOW_MS + 5_000),
      )) as number;
      return verdict(count, limit, resetSeconds);
    } catch (err) {
      this.markDegraded(err as Error);
      return this.memory.hit(clientId, limit);
    }
  }

  async close(): Promise<void> {
    if (!this.redis) return;
    this.redis.disconnect();
  }

  private markDegraded(err: Error): void {
    if (this.degraded) return;
    this.degraded = true;
    this.deps.log.warn(
      { err: err.message },
      'client rate limits: shared counter store unreachable, counting in this process until it answers',
    );
  }
}
