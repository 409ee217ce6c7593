/**
 * How many calls per key are running at this moment, bounded: the counterpart of a route's rate limit
 * (`config.rateLimit` counts requests per window) for work that holds something while it runs (an
 * upstream connection, a streamed answer). A caller takes a slot with `acquire` before the work and
 * gives it back with the returned release function when the work is over, however it ends; a key
 * whose slots are all taken gets `undefined`, and the caller answers 429 with `Retry-After`
 * (`tooManyRequests`). Counts live in this process's memory; a key without a running call holds
 * no memory.
 */
export class InFlightLimit {
  private readonly running = new Map<string, number>();

  /** A release function when `key` has fewer than `limit` calls running, else undefined. Release is idempotent. */
  acquire(key: string, limit: number): (() => void) | undefined {
    const count = this.running.get(key) ?? 0;
    if (count >= limit) return undefined;
    this.running.set(key, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.running.get(key) ?? 1) - 1;
      if (left > 0) this.running.set(key, left);
      else this.running.delete(key);
    };
  }

  /** Calls of `key` running now. */
  count(key: string): number {
    return this.running.get(key) ?? 0;
  }
}
