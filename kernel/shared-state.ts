import type { Clock } from './clock.ts';
import type { Db } from './database.ts';
import type { Logger } from './logger.ts';
import type { RateCount } from './rate-limit.ts';

/**
 * Short-lived state every process of an installation shares, so any replica answers any request
 * (no sticky sessions): values that expire (a pending sign-in, a sign-in provider's state) and
 * fixed-window counters (rate limits, lockouts). In PostgreSQL (`kernel_shared_*`, unlogged tables),
 * or in Redis when `REDIS_URL` is set. Expiry follows the kernel clock. Keys are `<plugin id>:<what>:<id>`
 * so plugins never meet; a value is JSON.
 */
export interface SharedState {
  /** Stores `value` under `key` for `ttlMs`, replacing what was there. */
  put(key: string, value: unknown, ttlMs: number): Promise<void>;
  /** The live value, or null (unknown or expired). */
  get<T>(key: string): Promise<T | null>;
  /** Removes and returns the live value in one step: of two processes taking one key, one gets it. */
  take<T>(key: string): Promise<T | null>;
  delete(key: string): Promise<void>;
  /**
   * Counts `by` events (default 1) of `key` in a window of `windowMs` that starts with the key's first
   * count; every process adds to the same count, which is returned with the time left.
   */
  hit(key: string, windowMs: number, by?: number): Promise<RateCount>;
  /** Where it lives and whether that answers now (`GET /client/v1/me` reports it). */
  state(): SharedStateInfo;
  /** Drops expired values and counters (the kernel's `shared-state-purge` schedule; Redis expires its own). */
  purge(): Promise<number>;
  ready(): Promise<void>;
  close(): Promise<void>;
}

export interface SharedStateInfo {
  store: 'database' | 'redis';
  reachable: boolean;
}

/** Shared state in the installation's PostgreSQL (the default: no other server needed). */
export class DatabaseSharedState implements SharedState {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  private now(): number {
    return this.deps.clock.now().getTime();
  }

  async put(key: string, value: unknown, ttlMs: number): Promise<void> {
    await this.deps.db.raw(
      `INSERT INTO kernel_shared_values (key, value, expires_at) VALUES (?, ?::jsonb, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
      [key, JSON.stringify(value), this.now() + ttlMs],
    );
  }

  async get<T>(key: string): Promise<T | null> {
    const { rows } = await this.deps.db.raw('SELECT value FROM kernel_shared_values WHERE key = ? AND expires_at > ?', [
      key,
      this.now(),
    ]);
    return rows.length ? (rows[0].value as T) : null;
  }

  async take<T>(key: string): Promise<T | null> {
    const { rows } = await this.deps.db.raw(
      'DELETE FROM kernel_shared_values WHERE key = ? RETURNING value, expires_at',
      [key],
    );
    return rows.length && Number(rows[0].expires_at) > this.now() ? (rows[0].value as T) : null;
  }

  async delete(key: string): Promise<void> {
    await this.deps.db.raw('DELETE FROM kernel_shared_values WHERE key = ?', [key]);
    await this.deps.db.raw('DELETE FROM kernel_shared_counters WHERE key = ?', [key]);
  }

  async hit(key: string, windowMs: number, by = 1): Promise<RateCount> {
    const now = this.now();
    // One statement under the row's lock: concurrent hits of every process each see their own count.
    const { rows } = await this.deps.db.raw(
      `INSERT INTO kernel_shared_counters AS c (key, window_start, count, expires_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET
         count = CASE WHEN c.window_start <= ? THEN excluded.count ELSE c.count + excluded.count END,
         window_start = CASE WHEN c.window_start <= ? THEN excluded.window_start ELSE c.window_start END,
         expires_at = CASE WHEN c.window_start <= ? THEN excluded.expires_at ELSE c.expires_at END
       RETURNING count, window_start`,
      [key, now, by, now + windowMs, now - windowMs, now - windowMs, now - windowMs],
    );
    return { count: rows[0].count, resetMs: Number(rows[0].window_start) + windowMs - now };
  }

  state(): SharedStateInfo {
    return { store: 'database', reachable: true };
  }

  async purge(): Promise<number> {
    const now = this.now();
    const values = await this.deps.db('kernel_shared_values').where('expires_at', '<=', now).delete();
    const counters = await this.deps.db('kernel_shared_counters').where('expires_at', '<=', now).delete();
    return values + counters;
  }

  async ready(): Promise<void> {}
  async close(): Promise<void> {}
}

/** Builds the installation's shared state: Redis with `REDIS_URL`, PostgreSQL otherwise. */
export async function createSharedState(opts: {
  db: Db;
  clock: Clock;
  log: Logger;
  redisUrl?: string;
  prefix: string;
}): Promise<SharedState> {
  if (!opts.redisUrl) return new DatabaseSharedState(opts);
  const { RedisSharedState } = await import('./shared-state-redis.ts');
  return new RedisSharedState({ url: opts.redisUrl, prefix: opts.prefix, clock: opts.clock, log: opts.log });
}
