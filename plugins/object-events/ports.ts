import type { Tx } from '../../kernel/index.ts';
import type { EventEnvelope } from './events.ts';

/**
 * The queue of event deliveries in the kernel's job engine. This plugin enqueues one job per waiting
 * delivery (in the writer's transaction); the `event-delivery` plugin works the queue. The name is
 * written in both manifests because plugins share no files.
 */
export const DELIVERY_QUEUE = 'object-events.deliveries';

/**
 * A job of the deliveries queue. The ticket is the delivery row's `job_ticket` when it was queued: a
 * retry of a dead delivery gives the row a new one, so a job queued before that finds the row changed
 * and sends nothing (one delivery is never sent by two jobs at once).
 */
export interface DeliveryJob {
  deliveryId: string;
  ticket: string;
}

/** A delivery as the sender needs it, read when its try begins. */
export interface DeliveryToSend {
  id: string;
  eventId: string;
  subscriptionId: string;
  /** Tries counted on the row so far, this one included. */
  attempts: number;
  endpointId: string;
  routeId: string;
  signingSecretRef: string | null;
  envelope: EventEnvelope;
}

/**
 * What this plugin offers the plugin that sends deliveries (container name `objectEventQueue`): a try
 * begun on the delivery row, and its outcome written to the delivery state machine. The tables stay
 * this plugin's; the retries and the claim are the job engine's.
 */
export interface ObjectEventQueue {
  /**
   * Counts a try on the row and returns what to send; undefined when there is nothing to send (the
   * delivery was deleted, is finished, or was queued again under another ticket).
   */
  begin(job: DeliveryJob): Promise<DeliveryToSend | undefined>;
  /** The receiver answered 2xx. */
  delivered(job: DeliveryJob): Promise<void>;
  /**
   * A failed try, in the job engine's transaction: `retrying` until `nextRunAt`, or `dead` when no try
   * is left (`nextRunAt` undefined).
   */
  failed(job: DeliveryJob, failure: { problem: string; nextRunAt: Date | undefined }, trx: Tx): Promise<void>;
  /** The receiver answered 410 Gone: the subscription is disabled and all its waiting deliveries are given up. */
  gone(delivery: DeliveryToSend, problem: string): Promise<void>;
}

declare module '../../kernel/index.ts' {
  interface PluginServices {
    objectEventQueue: ObjectEventQueue;
  }
}
