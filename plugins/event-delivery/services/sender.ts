import { Counter } from 'prom-client';
import { isHttpError, type Clock, type Logger, type Metrics, type ServiceMap } from '../../../kernel/index.ts';
import { deliveryBody, deliveryHeaders, retryAfterMs } from './request.ts';

/** Bytes of a receiver's answer kept (the answer is never read; small ones are, so the connection is reused). */
const RECEIVER_ANSWER_BYTES = 64 * 1024;

type GatewayRoutes = ServiceMap['gatewayRoutes'];
export type DeliveryToSend = NonNullable<Awaited<ReturnType<ServiceMap['objectEventQueue']['begin']>>>;

export type SendOutcome =
  | { kind: 'delivered' }
  /** Network error, timeout, non-2xx, missing secret: retried on the schedule, dead after the 6th try. */
  | { kind: 'failed'; problem: string; retryAfterMs?: number }
  /** The receiver answered 410 Gone: the delivery is dead and the subscription disabled. */
  | { kind: 'gone'; problem: string };

const SECRET_REF = /^OBJECT_EVENTS_SECRET_[A-Z0-9_]+$/;

export interface SenderOptions {
  /** Host name sent as `instance`. */
  instance: string;
  /** Calls in flight at once (the spec's 5 concurrent calls); further sends wait for a free one. */
  calls: number;
  /** How long a receiver has to answer (OBJECT_EVENTS_SEND_TIMEOUT_SECONDS, the spec's 10 s by default). */
  timeoutMs: number;
  /** Reads a signing secret variable (the gateway's environment by default). */
  secretOf?: (name: string) => string | undefined;
}

/**
 * Sends one delivery through the gateway's routes (`gatewayRoutes.callRoute`: endpoint credentials,
 * outbound policy): the body built from the stored envelope, signed, within the send timeout. Never
 * throws; the outcome says what the receiver did.
 */
export class DeliverySender {
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly deps: { gatewayRoutes: GatewayRoutes; clock: Clock; log: Logger },
    private readonly opts: SenderOptions,
  ) {}

  async send(delivery: DeliveryToSend): Promise<SendOutcome> {
    await this.acquire();
    try {
      return await this.call(delivery);
    } catch (err) {
      this.deps.log.error({ err, delivery: delivery.id }, 'object events: delivery failed');
      return { kind: 'failed', problem: 'internal error before sending' };
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.inFlight < this.opts.calls) {
      this.inFlight += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** A freed call goes to the next waiting send at once (the count stays). */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.inFlight -= 1;
  }

  private async call(delivery: DeliveryToSend): Promise<SendOutcome> {
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
      timeoutMs: this.opts.timeoutMs,
      // Only the status and Retry-After are read: a receiver's long answer is cut, never held.
      maxBytes: RECEIVER_ANSWER_BYTES,
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>(
      (resolve) => (timer = setTimeout(() => resolve('timeout'), this.opts.timeoutMs + 500)),
    );
    try {
      const answer = await Promise.race([call, timeout]);
      if (answer === 'timeout') return { kind: 'failed', problem: `no answer within ${this.opts.timeoutMs / 1000} s` };
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
