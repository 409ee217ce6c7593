import Bottleneck from 'bottleneck';
import { tooManyRequests } from '../../../kernel/index.ts';
import type { Endpoint } from '../model.ts';

/**
 * One bottleneck limiter per endpoint with a rate limit, rebuilt when its settings change. Calls
 * beyond `maxQueued` waiting calls are refused at once with 429 rather than piling up; the counters
 * are this process's (one gateway instance is the supported deployment).
 */
export class EndpointLimiters {
  private readonly limiters = new Map<string, { settings: string; limiter: Bottleneck }>();

  async run<T>(endpoint: Endpoint, work: () => Promise<T>): Promise<T> {
    const limits = endpoint.rateLimit;
    if (!limits || (limits.requestsPerMinute === undefined && limits.maxConcurrent === undefined)) return work();
    const settings = JSON.stringify(limits);
    let entry = this.limiters.get(endpoint.id);
    if (!entry || entry.settings !== settings) {
      if (entry) void entry.limiter.stop({ dropWaitingJobs: false });
      const perMinute = limits.requestsPerMinute;
      const limiter = new Bottleneck({
        maxConcurrent: limits.maxConcurrent ?? null,
        highWater: limits.maxQueued ?? 0,
        strategy: Bottleneck.strategy.OVERFLOW,
        ...(perMinute !== undefined
          ? { reservoir: perMinute, reservoirRefreshAmount: perMinute, reservoirRefreshInterval: 60_000 }
          : {}),
      });
      entry = { settings, limiter };
      this.limiters.set(endpoint.id, entry);
    }
    try {
      return await entry.limiter.schedule(work);
    } catch (err) {
      if (err instanceof Bottleneck.BottleneckError) {
        throw tooManyRequests(
          `The rate limit of endpoint ${endpoint.name} is reached; try again later`,
          60,
          'ENDPOINT_RATE_LIMITED',
        );
      }
      throw err;
    }
  }

  forget(endpointId: string): void {
    const entry = this.limiters.get(endpointId);
    if (entry) void entry.limiter.stop({ dropWaitingJobs: false });
    this.limiters.delete(endpointId);
  }

  async stop(): Promise<void> {
    await Promise.all(
      [...this.limiters.values()].map((e) => e.limiter.stop({ dropWaitingJobs: true }).catch(() => undefined)),
    );
    this.limiters.clear();
  }
}
