import { tooManyRequests } from './errors.ts';

/**
 * Fixed one-minute windows per client address, in memory (per process), for the public routes of
 * several plugins (data, content, search, published-site gateway routes). `request.ip` follows
 * TRUST_PROXY, so behind the proxy the address comes from X-Forwarded-For. Counters of past windows are
 * dropped when a new window starts, so memory holds one minute of addresses at most.
 */
export class AddressRateLimit {
  private window = -1;
  private counts = new Map<string, number>();

  /**
   * @param perMinute requests allowed per address and minute
   * @param now milliseconds since 1970 (the kernel clock in plugins, so tests can move time)
   * @param message what a refused caller reads, e.g. "Too many searches; try again later"
   */
  constructor(
    private readonly perMinute: number,
    private readonly now: () => number,
    private readonly message: string,
  ) {}

  /** Counts one request; throws 429 with Retry-After (the rest of the window) beyond the limit. */
  hit(address: string): void {
    const t = this.now();
    const window = Math.floor(t / 60_000);
    if (window !== this.window) {
      this.window = window;
      this.counts = new Map();
    }
    const count = (this.counts.get(address) ?? 0) + 1;
    this.counts.set(address, count);
    if (count > this.perMinute) throw tooManyRequests(this.message, ((window + 1) * 60_000 - t) / 1000);
  }
}
