import { InFlightLimit, type SharedState, tooManyRequests } from '../../../kernel/index.ts';
import type { Endpoint } from '../model.ts';
import { CallQueue, CallQueueFull } from './call-queue.ts';

/**
 * What bounds the calls to one endpoint:
 * - every endpoint: at most `maxInFlight` calls at once per process (`GATEWAY_ENDPOINT_MAX_IN_FLIGHT`),
 *   whoever makes them; the next is refused at once with 429 `ENDPOINT_BUSY` and `Retry-After: 1`. A
 *   streamed answer counts until its body is over, not only until its headers arrived.
 * - `requestsPerMinute`: one count per endpoint in the kernel's shared state, so every gateway and
 *   core-api process adds to the same budget (a call is counted when it starts, after any wait for a
 *   slot); beyond it 429 `ENDPOINT_RATE_LIMITED` with the seconds left of the minute.
 * - `maxConcurrent` and `maxQueued`: one call queue per process, rebuilt when the settings change
 *   (calls already waiting in the old one still run). Calls beyond `maxQueued` waiting calls are refused at once with 429 rather than piling up.
 */
export class EndpointLimiters {
  private readonly limiters = new Map<string, { settings: string; limiter: CallQueue }>();
  private readonly inFlight = new InFlightLimit();

  constructor(
    private readonly maxInFlight: number,
    private readonly shared: SharedState,
  ) {}

  /**
   * Runs `work` under the endpoint's limits. With `heldUntil`, the call keeps its slots after `work`
   * answered, until the promise `heldUntil(answer)` settles (a streamed body that is still flowing).
   */
  async run<T>(endpoint: Endpoint, work: () => Promise<T>, heldUntil?: (answer: T) => Promise<unknown>): Promise<T> {
    const release = this.inFlight.acquire(endpoint.id, this.maxInFlight);
    if (!release)
      throw tooManyRequests(
        `Endpoint ${endpoint.name} has ${this.maxInFlight} calls in flight; try again shortly`,
        1,
        'ENDPOINT_BUSY',
      );
    let held = false;
    try {
      const limiter = this.limiterOf(endpoint);
      const counted = endpoint.rateLimit?.requestsPerMinute
        ? async () => {
            await this.count(endpoint, endpoint.rateLimit!.requestsPerMinute!);
            return work();
          }
        : work;
      const answer = limiter ? await this.scheduled(endpoint, limiter, counted, heldUntil) : await counted();
      if (heldUntil) {
        held = true;
        heldUntil(answer).then(release, release);
      }
      return answer;
    } finally {
      if (!held) release();
    }
  }

  forget(endpointId: string): void {
    this.limiters.delete(endpointId);
  }

  async stop(): Promise<void> {
    for (const entry of this.limiters.values()) entry.limiter.dropWaiting();
    this.limiters.clear();
  }

  private limiterOf(endpoint: Endpoint): CallQueue | undefined {
    const limits = endpoint.rateLimit;
    if (!limits || limits.maxConcurrent === undefined) return undefined;
    const settings = JSON.stringify(limits);
    let entry = this.limiters.get(endpoint.id);
    if (!entry || entry.settings !== settings) {
      entry = { settings, limiter: new CallQueue(limits.maxConcurrent, limits.maxQueued ?? 0) };
      this.limiters.set(endpoint.id, entry);
    }
    return entry.limiter;
  }

  /** Counts one call of the endpoint across every process; refuses it beyond `perMinute`. */
  private async count(endpoint: Endpoint, perMinute: number): Promise<void> {
    const { count, resetMs } = await this.shared.hit(`gateway:endpoint-calls:${endpoint.id}`, 60_000);
    if (count > perMinute)
      throw tooManyRequests(
        `The rate limit of endpoint ${endpoint.name} is reached; try again later`,
        Math.max(1, Math.ceil(resetMs / 1000)),
        'ENDPOINT_RATE_LIMITED',
      );
  }

  /** `work` through the limiter; with `heldUntil` its concurrency slot stays taken until that settles. */
  private async scheduled<T>(
    endpoint: Endpoint,
    limiter: CallQueue,
    work: () => Promise<T>,
    heldUntil?: (answer: T) => Promise<unknown>,
  ): Promise<T> {
    try {
      if (!heldUntil) return await limiter.run(work);
      return await new Promise<T>((resolve, reject) => {
        limiter
          .run(async () => {
            const answer = await work();
            resolve(answer);
            await heldUntil(answer).catch(() => undefined);
          })
          .catch(reject);
      });
    } catch (err) {
      if (err instanceof CallQueueFull) {
        throw tooManyRequests(
          `The rate limit of endpoint ${endpoint.name} is reached; try again later`,
          60,
          'ENDPOINT_RATE_LIMITED',
        );
      }
      throw err;
    }
  }
}
