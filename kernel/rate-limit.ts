import type { FastifyReply, FastifyRequest, onRequestHookHandler, preHandlerHookHandler, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { type Clock, nowMsOf } from './clock.ts';
import { tooManyRequests } from './errors.ts';
import type { Logger } from './logger.ts';
import type { SharedState } from './shared-state.ts';

// Why not @fastify/rate-limit: it reads the same `config.rateLimit` key with other options, its hook
// is async (a few promises per request), and it needed our own store anyway (the kernel clock that
// tests move, the per-process fallback while Redis cannot answer). On `npm run bench:kernel`'s
// limited GET its hook cost 7-11 µs more CPU per request than this one, on every public read (the
// whole request cost 45-80 µs on that busy machine; this limiter's share was within noise).

/**
 * Whose requests one count covers: the client address (`request.ip`, which follows TRUST_PROXY), the
 * signed-in user (the address for a request without one), or a function of the request; a function
 * that answers `null` leaves the request uncounted (e.g. a caller whose credential was refused).
 */
export type RateLimitKey = 'address' | 'user' | ((request: FastifyRequest) => string | null);

/**
 * A route's rate limit, declared beside its access rule (`config: { public: true, rateLimit: {...} }`)
 * and enforced by the kernel when the request arrives, before its body is read: at most `limit`
 * requests per key in a window of `windowMs` that starts with the key's first counted request. Every
 * answer of a limited route carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`
 * (seconds); beyond the limit it is a 429 with `Retry-After` and the error body with `code`.
 */
export interface RouteRateLimit {
  key: RateLimitKey;
  windowMs: number;
  /** Requests per key and window; a function for limits that depend on the caller (an API client's own). */
  limit: number | ((request: FastifyRequest) => number);
  /**
   * Routes declaring the same bucket share one count per key (all public routes of a plugin: name it
   * `<plugin id>:<what>`); by default each route counts on its own.
   */
  bucket?: string;
  /** Where counts live; by default the kernel's (shared across processes unless RATE_LIMIT_STORE=memory). */
  store?: RateLimitStore;
  /** What a refused caller reads (default: "Too many requests; try again later"), or a function of the limit. */
  message?: string | ((limit: number) => string);
  /** The error body's code (default RATE_LIMITED). */
  code?: string;
  /**
   * When the request is counted: `onRequest` (default), before the body is read, so a flood costs no
   * parsing; `preHandler`, after the route's input validation, so a refused input does not count.
   */
  hook?: 'onRequest' | 'preHandler';
}

/** One key's count in its current window. */
export interface RateCount {
  count: number;
  /** Milliseconds until the window ends. */
  resetMs: number;
}

/** Where counts live: shared by every process ({@link SharedRateLimitStore}) or in this one ({@link MemoryRateLimitStore}). */
export interface RateLimitStore {
  /**
   * Counts one request of `key` in `bucket` under a limit of `limit`; a count that needs no round trip
   * answers at once, without a promise.
   */
  hit(bucket: string, key: string, windowMs: number, limit: number): RateCount | Promise<RateCount>;
}

interface Window {
  start: number;
  count: number;
}

/**
 * Counts of one bucket in two generations of at least one window each: a key not seen in either was
 * last counted more than a window ago, so its window is over and dropping it loses nothing. Memory
 * holds the keys of the last two windows at most, and no request ever pays for a sweep.
 */
class MemoryBucket {
  private current = new Map<string, Window>();
  private previous = new Map<string, Window>();
  private rotatedAt: number;

  constructor(
    readonly windowMs: number,
    now: number,
  ) {
    this.rotatedAt = now;
  }

  hit(key: string, now: number, by = 1): RateCount {
    if (now - this.rotatedAt >= this.windowMs) {
      this.previous = now - this.rotatedAt >= 2 * this.windowMs ? new Map() : this.current;
      this.current = new Map();
      this.rotatedAt = now;
    }
    let w = this.current.get(key);
    if (w === undefined) {
      w = this.previous.get(key);
      if (w !== undefined) this.current.set(key, w);
    }
    if (w === undefined || now - w.start >= this.windowMs) {
      w = { start: now, count: 0 };
      this.current.set(key, w);
    }
    w.count += by;
    return { count: w.count, resetMs: w.start + this.windowMs - now };
  }
}

/** Counts in this process's memory, on the kernel clock (tests move time with `ManualClock`). */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly buckets = new Map<string, MemoryBucket>();

  constructor(private readonly clock: Clock) {}

  state(): RateLimitStoreState {
    return { store: 'memory', reachable: true };
  }

  /** Counts one request; the limit is for stores that count ahead of it (nothing to lease in memory). */
  hit(bucket: string, key: string, windowMs: number, _limit?: number): RateCount {
    return this.add(bucket, key, windowMs, 1);
  }

  /** Counts `by` requests at once (the shared state's counters while Redis cannot answer). */
  add(bucket: string, key: string, windowMs: number, by: number): RateCount {
    const now = nowMsOf(this.clock);
    let counts = this.buckets.get(bucket);
    if (counts === undefined || counts.windowMs !== windowMs) {
      counts = new MemoryBucket(windowMs, now);
      this.buckets.set(bucket, counts);
    }
    return counts.hit(key, now, by);
  }
}

/** What `GET /client/v1/me` and the like report about where counts live. */
export interface RateLimitStoreState {
  store: 'memory' | 'database' | 'redis';
  reachable: boolean;
}

/** Part of a shared budget this process took: requests it may count without asking the store. */
interface Lease {
  /** The shared count before this process's claim: what other processes had counted by then. */
  before: number;
  /** Requests counted here from the claim. */
  used: number;
  /** Requests of the claim still free. */
  free: number;
  /** When the shared window ends (kernel clock, ms). */
  resetAt: number;
  /** The shared count was past the limit: every request is refused until the window ends. */
  over?: boolean;
}

// A process claims at most this share of a limit at once: a limit of 600 costs one round trip per 37
// requests, while a small limit (sign-in, forms: below 32) is asked of the store for every request.
const LEASE_DIVISOR = 16;
const MAX_LEASES = 10_000;

/**
 * Counts in the installation's shared state (PostgreSQL, or Redis with `REDIS_URL`), so every replica
 * adds to one budget per key: a limit of 10 a minute is at most 10 in all. A process claims part of
 * the budget at a time (a lease of `limit / 16` requests, at least 1) and counts that part in
 * memory, so a busy public route costs one round trip per lease, not per request; what one process
 * holds unused is lost for the others until the window ends (at most a sixteenth of the limit per
 * process). When the shared store fails a request is counted in this process instead (fail open to a
 * per-process budget, never to "unlimited" and never to "everyone refused").
 */
export class SharedRateLimitStore implements RateLimitStore {
  private readonly memory: MemoryRateLimitStore;
  /** Leases per bucket, then per key: a request looks its key up without building a bucket-and-key text. */
  private readonly leases = new Map<string, Map<string, Lease>>();
  private leaseCount = 0;
  /** The claim under way per key: requests that find the lease used up meanwhile wait for it. */
  private readonly claims = new Map<string, Promise<RateCount>>();
  private failing = false;

  constructor(private readonly opts: { shared: SharedState; clock: Clock; log: Logger }) {
    this.memory = new MemoryRateLimitStore(opts.clock);
  }

  state(): RateLimitStoreState {
    return this.opts.shared.state();
  }

  hit(bucket: string, key: string, windowMs: number, limit: number): RateCount | Promise<RateCount> {
    const now = nowMsOf(this.opts.clock);
    const lease = this.leases.get(bucket)?.get(key);
    if (lease !== undefined && now < lease.resetAt) {
      if (lease.free > 0) {
        lease.free--;
        lease.used++;
        return { count: lease.before + lease.used, resetMs: lease.resetAt - now };
      }
      // Past the limit the shared count only grows until the window ends: no round trip to refuse.
      if (lease.over) return { count: Math.max(lease.before, limit + 1), resetMs: lease.resetAt - now };
    }
    // One claim at a time per key: concurrent requests each claiming a lease took a sixteenth of the
    // limit each, so a burst of 16 used the whole budget of the window and the next were refused.
    const id = `${bucket}:${key}`;
    const pending = this.claims.get(id);
    if (pending !== undefined)
      return pending.then(() =>
        this.failing ? this.memory.hit(bucket, key, windowMs) : this.hit(bucket, key, windowMs, limit),
      );
    const claim = this.claim(id, bucket, key, windowMs, limit, now).finally(() => this.claims.delete(id));
    this.claims.set(id, claim);
    return claim;
  }

  private async claim(
    id: string,
    bucket: string,
    key: string,
    windowMs: number,
    limit: number,
    now: number,
  ): Promise<RateCount> {
    const size = Math.max(1, Math.floor(limit / LEASE_DIVISOR));
    try {
      const counted = await this.opts.shared.hit(`rate:${id}`, windowMs, size);
      this.failing = false;
      const before = counted.count - size;
      // What of the claim is within the limit; a claim past it is a refusal (count > limit).
      const usable = Math.max(0, Math.min(counted.count, limit) - before);
      if (usable === 0) {
        this.keep(
          bucket,
          key,
          { before: counted.count, used: 0, free: 0, resetAt: now + counted.resetMs, over: true },
          now,
        );
        return counted;
      }
      this.keep(bucket, key, { before, used: 1, free: usable - 1, resetAt: now + counted.resetMs }, now);
      return { count: before + 1, resetMs: counted.resetMs };
    } catch (err) {
      if (!this.failing) this.opts.log.warn({ err }, 'rate limits: shared store failed, counting in this process');
      this.failing = true;
      return this.memory.hit(bucket, key, windowMs);
    }
  }

  private keep(bucket: string, key: string, lease: Lease, now: number): void {
    if (this.leaseCount >= MAX_LEASES) this.sweep(now);
    let byKey = this.leases.get(bucket);
    if (byKey === undefined) {
      byKey = new Map();
      this.leases.set(bucket, byKey);
    }
    if (!byKey.has(key)) this.leaseCount++;
    byKey.set(key, lease);
  }

  private sweep(now: number): void {
    for (const byKey of this.leases.values())
      for (const [key, lease] of byKey)
        if (lease.resetAt <= now || lease.free === 0) {
          byKey.delete(key);
          this.leaseCount--;
        }
    if (this.leaseCount >= MAX_LEASES) {
      this.leases.clear();
      this.leaseCount = 0;
    }
  }
}

const DEFAULT_MESSAGE = 'Too many requests; try again later';

const keyOf = (key: RateLimitKey): ((request: FastifyRequest) => string | null) => {
  if (typeof key === 'function') return key;
  if (key === 'address') return (request) => request.ip;
  if (key === 'user') return (request) => (request.actor.type === 'user' ? `user:${request.actor.id}` : request.ip);
  throw new Error(`unknown rate limit key "${String(key)}"`);
};

/** The route's onRequest hook for its declared limit (a callback hook: a memory count needs no promise). */
function limitHook(route: RouteOptions, rule: RouteRateLimit, fallback: RateLimitStore): onRequestHookHandler {
  const where = `route ${String(route.method)} ${route.url}`;
  if (!Number.isInteger(rule.windowMs) || rule.windowMs < 1000)
    throw new Error(`${where}: config.rateLimit.windowMs must be a whole number of milliseconds, at least 1000`);
  if (rule.hook !== undefined && rule.hook !== 'onRequest' && rule.hook !== 'preHandler')
    throw new Error(`${where}: config.rateLimit.hook must be onRequest or preHandler`);
  if (typeof rule.limit !== 'function' && (!Number.isInteger(rule.limit) || rule.limit < 1))
    throw new Error(`${where}: config.rateLimit.limit must be a positive integer or a function of the request`);
  const key = keyOf(rule.key);
  const method = route.method === 'HEAD' ? 'GET' : String(route.method);
  const bucket = rule.bucket ?? `${method} ${route.url}`;
  const { windowMs, limit } = rule;
  const store = rule.store ?? fallback;
  const message = rule.message ?? DEFAULT_MESSAGE;
  const messageFor = typeof message === 'string' ? () => message : message;
  const code = rule.code ?? 'RATE_LIMITED';
  const fixedLimit = typeof limit === 'number' ? String(limit) : undefined;
  const answer = (reply: FastifyReply, max: number, counted: RateCount, done: (err?: Error) => void) => {
    const reset = Math.max(1, Math.ceil(counted.resetMs / 1000));
    // Header values as text: numbers cost the client reads of bench:gateway about a tenth of their req/s.
    reply.header('ratelimit-limit', fixedLimit ?? String(max));
    reply.header('ratelimit-remaining', String(max > counted.count ? max - counted.count : 0));
    reply.header('ratelimit-reset', String(reset));
    if (counted.count <= max) return done();
    done(tooManyRequests(messageFor(max), reset, code));
  };
  return (request, reply, done) => {
    const who = key(request);
    if (who === null) return done();
    const max = typeof limit === 'number' ? limit : limit(request);
    const counted = store.hit(bucket, who, windowMs, max);
    if (counted instanceof Promise) counted.then((c) => answer(reply, max, c, done), done);
    else answer(reply, max, counted, done);
  };
}

/**
 * Enforces `config.rateLimit` of every route (an onRoute hook adds the route's own onRequest hook, so
 * routes without a limit pay nothing). Registered through fastify-plugin so it sees every plugin's
 * routes; its hook runs after the context's own onRequest hooks (the session check, a plugin's
 * credential check), so a key function can read what they found.
 */
export const routeRateLimits = fp<{ store: RateLimitStore }>(
  async (app, { store: memory }) => {
    const windows = new Map<string, number>();
    app.addHook('onRoute', (route) => {
      const rule = (route.config as { rateLimit?: RouteRateLimit } | undefined)?.rateLimit;
      if (!rule) return;
      const hook = limitHook(route, rule, memory);
      if (rule.bucket !== undefined) {
        const known = windows.get(rule.bucket);
        if (known !== undefined && known !== rule.windowMs)
          throw new Error(
            `route ${String(route.method)} ${route.url}: rate limit bucket "${rule.bucket}" has two windows`,
          );
        windows.set(rule.bucket, rule.windowMs);
      }
      if (rule.hook === 'preHandler') {
        const handler = hook as preHandlerHookHandler;
        route.preHandler = route.preHandler === undefined ? [handler] : [...[route.preHandler].flat(), handler];
      } else route.onRequest = route.onRequest === undefined ? [hook] : [...[route.onRequest].flat(), hook];
    });
  },
  { name: 'kernel-rate-limits' },
);
