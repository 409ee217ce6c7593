import { tooManyRequests } from '../../../kernel/index.ts';

/**
 * Fixed one-minute windows per client address for the public content routes (in memory: one core-api
 * process is supported). `request.ip` follows TRUST_PROXY. Counters of past windows are dropped when
 * a new window starts.
 */
export class PublicRateLimit {
  private window = -1;
  private counts = new Map<string, number>();

  constructor(private readonly perMinute: number, private readonly now: () => number) {}

  hit(address: string): void {
    const t = this.now();
    const window = Math.floor(t / 60_000);
    if (window !== this.window) {
      this.window = window;
      this.counts = new Map();
    }
    const count = (this.counts.get(address) ?? 0) + 1;
    this.counts.set(address, count);
    if (count > this.perMinute) {
      throw tooManyRequests('Too many requests to the public content API; try again later', ((window + 1) * 60_000 - t) / 1000);
    }
  }
}
