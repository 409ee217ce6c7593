import { tooManyRequests } from '../../../kernel/index.ts';

/**
 * Fixed one-minute windows per client address for the published-site routes (in memory, per process).
 * `request.ip` follows TRUST_PROXY, so behind the proxy the address comes from X-Forwarded-For.
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
    if (count > this.perMinute) throw tooManyRequests('Too many gateway requests from this address; try again later', ((window + 1) * 60_000 - t) / 1000);
  }
}
