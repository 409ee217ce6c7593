import { Counter } from 'prom-client';
import { isHttpError, type Clock, type Logger, type Metrics, type ServiceMap } from '../../../kernel/index.ts';
import { deliveryBody, deliveryHeaders, retryAfterMs } from './request.ts';

/** Bytes of a receiver's answer kept (the answer is never read; small ones are, so the connection is reused). */
const RECEIVER_ANSWER_BYTES = 64 * 1024;

type Queue = ServiceMap['objectEventQueue'];
type GatewayRoutes = ServiceMap['gatewayRoutes'];
type ClaimedDelivery = Awaited<ReturnType<Queue['claim']>>[number];
type Outcome = Parameters<Queue['finish']>[1];

/** Deliveries claimed per free slot in one round trip. */
const PREFETCH_FACTOR = 4;

const SECRET_REF = /^OBJECT_EVENTS_SECRET_[A-Z0-9_]+$/;

/** The spec's send timeout. */
export const SEND_TIMEOUT_MS = 10_000;

export interface WorkerOptions {
  concurrency: number;
  pollMs: number;
  leaseMs: number;
  /** Host name sent as `instance`. */
  instance: string;
  /** Reads a signing secret variable (the gateway's environment by default). */
  secretOf?: (name: string) => string | undefined;
}

/**
 * Sends due deliveries through the gateway's routes (`gatewayRoutes.callRoute`): claims at most `concurrency` at a time under a
 * lease, wakes on a database notice or every `pollMs`, and reports each outcome to the queue (which
 * applies the retry schedule). Sending is at least once: a process killed mid-call leaves the claim to
 * expire and the delivery is sent again.
 */
export class DeliveryWorker {
  private readonly inFlight = new Set<Promise<void>>();
  /** Claimed, not yet started (a claim takes a few at once to save round trips). */
  private readonly claimed: { delivery: ClaimedDelivery; claimedAt: number }[] = [];
  private running: Promise<void> | undefined;
  private stopped = true;
  private wakeUp: (() => void) | undefined;
  /** A wake-up that came while the loop was busy is not lost: the next pause returns at once. */
  private woken = false;
  private readonly timeoutMs: number;
  /** Callers of `settled()`; `armed` once a claim began after the call. */
  private settledWaiters: { armed: boolean; resolve: () => void }[] = [];

  constructor(
    private readonly deps: {
      queue: Queue;
      gatewayRoutes: GatewayRoutes;
      clock: Clock;
      log: Logger;
      /** Counts each recorded outcome (`object_event_deliveries_total{outcome}`). */
      outcomes?: Counter<'outcome'>;
    },
    private readonly opts: WorkerOptions,
  ) {
    // The lease must outlast a send, or a slow call could be claimed again while still running.
    this.timeoutMs = Math.min(SEND_TIMEOUT_MS, opts.leaseMs / 2);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.running = this.loop();
  }

  /** Stops claiming and waits for the calls in flight (each bounded by the timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.running;
    await Promise.allSettled([...this.inFlight]);
    for (const waiter of this.settledWaiters.splice(0)) waiter.resolve();
  }

  /**
   * Resolves once the worker has nothing left to do that was due when called: a claim that began
   * after the call found nothing, and no claimed delivery is unsent or in flight (its outcome is
   * recorded). At once when the worker is not running, as it will send nothing. Lets a caller (a
   * test, a drain before shutdown) know that what would have been sent by now has been.
   */
  settled(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      this.settledWaiters.push({ armed: false, resolve });
      this.wake();
    });
  }

  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      this.startClaimed();
      const room = this.opts.concurrency * PREFETCH_FACTOR - this.inFlight.size - this.claimed.length;
      // Claim again before the local queue runs dry, so slots never wait for a round trip.
      if (this.claimed.length < this.opts.concurrency && room > 0) {
        try {
          const claimedAt = this.deps.clock.now().getTime();
          for (const waiter of this.settledWaiters) waiter.armed = true;
          const batch = await this.deps.queue.claim(room, this.opts.leaseMs);
          for (const delivery of batch) this.claimed.push({ delivery, claimedAt });
          // A full batch means more may be due: start these and claim again.
          if (batch.length > 0) continue;
          if (this.inFlight.size === 0 && this.claimed.length === 0) this.resolveSettled();
        } catch (err) {
          this.deps.log.error({ err }, 'object events: claiming deliveries failed');
          await this.pause(this.opts.pollMs * 4);
          continue;
        }
      }
      await this.pause(this.opts.pollMs);
    }
    // Claims not started go back at once instead of waiting for their lease.
    const unsent = this.claimed.splice(0).map((c) => c.delivery);
    if (unsent.length > 0)
      await this.deps.queue
        .release(unsent)
        .catch((err) => this.deps.log.warn({ err }, 'object events: releasing claims failed'));
  }

  private resolveSettled(): void {
    const armed = this.settledWaiters.filter((w) => w.armed);
    if (armed.length === 0) return;
    this.settledWaiters = this.settledWaiters.filter((w) => !w.armed);
    for (const waiter of armed) waiter.resolve();
  }

  /**
   * Starts claimed deliveries while slots are free. One whose lease would not outlast a send is
   * given back unsent: no delivery is ever sent after its lease could have passed, so never twice at once.
   */
  private startClaimed(): void {
    const late: ClaimedDelivery[] = [];
    while (this.inFlight.size < this.opts.concurrency && this.claimed.length > 0) {
      const { delivery, claimedAt } = this.claimed.shift()!;
      if (this.deps.clock.now().getTime() > claimedAt + this.opts.leaseMs - this.timeoutMs - 1_000) late.push(delivery);
      else this.track(this.deliver(delivery));
    }
    // Given back at once (the try not counted), so slow receivers do not age deliveries unsent.
    if (late.length > 0) {
      this.track(
        this.deps.queue
          .release(late)
          .catch((err) => this.deps.log.warn({ err }, 'object events: releasing late claims failed')),
      );
    }
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => {
      this.inFlight.delete(work);
      this.wake();
    });
  }

  private pause(ms: number): Promise<void> {
    if (this.woken || this.stopped) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        this.woken = false;
        clearTimeout(timer);
        resolve();
      };
      timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    let outcome: Outcome;
    try {
      outcome = await this.send(delivery);
    } catch (err) {
      outcome = { kind: 'failed', problem: 'internal error before sending' };
      this.deps.log.error({ err, delivery: delivery.id }, 'object events: delivery failed');
    }
    try {
      await this.deps.queue.finish(delivery, outcome);
      this.deps.outcomes?.inc({ outcome: outcome.kind });
    } catch (err) {
      // The lease runs out and the delivery is sent again: at least once.
      this.deps.log.error({ err, delivery: delivery.id }, 'object events: recording a delivery outcome failed');
    }
  }

  private async send(delivery: ClaimedDelivery): Promise<Outcome> {
    let secret: string | undefined;
    if (delivery.signingSecretRef) {
      // Only the signing-secret namespace, whatever a row says: never DATABASE_URL or another secret.
      if (!SECRET_REF.test(delivery.signingSecretRef))
        return { kind: 'failed', problem: 'signing secret reference outside OBJECT_EVENTS_SECRET_*; nothing sent' };
      // The variable is named at run time by the subscription, so it cannot be part of the typed config slice.
      secret = (this.opts.secretOf ?? ((name) => process.env[name]))(delivery.signingSecretRef);
      if (!secret)
        return {
          kind: 'failed',
          problem: `signing secret variable ${delivery.signingSecretRef} is not set; nothing sent`,
        };
    }
    const now = this.deps.clock.now();
    const timestamp = Math.floor(now.getTime() / 1000);
    const body = deliveryBody(delivery, this.opts.instance);
    const call = this.deps.gatewayRoutes.callRoute(delivery.endpointId, delivery.routeId, {
      body: Buffer.from(body, 'utf8'),
      headers: deliveryHeaders(delivery, body, timestamp, secret),
      timeoutMs: this.timeoutMs,
      // Only the status and Retry-After are read: a receiver's long answer is cut, never held.
      maxBytes: RECEIVER_ANSWER_BYTES,
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>(
      (resolve) => (timer = setTimeout(() => resolve('timeout'), this.timeoutMs + 500)),
    );
    try {
      const answer = await Promise.race([call, timeout]);
      if (answer === 'timeout') return { kind: 'failed', problem: `no answer within ${this.timeoutMs / 1000} s` };
      if (answer.status >= 200 && answer.status < 300) return { kind: 'delivered' };
      if (answer.status === 410) return { kind: 'gone', problem: 'receiver answered 410 Gone; subscription disabled' };
      const retryAfter =
        answer.status === 429 || answer.status === 503
          ? retryAfterMs(headerOf(answer.headers, 'retry-after'), now)
          : undefined;
      return { kind: 'failed', problem: `receiver answered HTTP ${answer.status}`, retryAfterMs: retryAfter };
    } catch (err) {
      const problem = isHttpError(err) ? `${err.code}: ${err.message}` : 'network error';
      return { kind: 'failed', problem };
    } finally {
      clearTimeout(timer);
      call.catch(() => undefined);
    }
  }
}

function headerOf(headers: Record<string, string>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers))
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  return undefined;
}

/** The counter of delivery outcomes (delivered, failed, ...) in the kernel's metrics registry. */
export function deliveryOutcomes(metrics: Metrics): Counter<'outcome'> {
  return new Counter({
    name: 'object_event_deliveries_total',
    help: 'Event delivery tries by outcome',
    labelNames: ['outcome'] as const,
    registers: [metrics.registry],
  });
}
