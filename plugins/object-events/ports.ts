import type { EventEnvelope } from './events.ts';

/**
 * What this plugin offers the delivery worker (container name `objectEventQueue`): due deliveries
 * claimed under a lease, and their outcome applied to the delivery state machine. The worker runs in
 * another plugin (`event-delivery`, gateway process only); the tables stay this plugin's.
 */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  subscriptionId: string;
  /** This try's number (1 for the first). */
  attempt: number;
  /** Fences the outcome: a delivery reclaimed after the lease passed ignores the old worker's answer. */
  claimToken: string;
  endpointId: string;
  routeId: string;
  signingSecretRef: string | null;
  envelope: EventEnvelope;
}

export type DeliveryOutcome =
  | { kind: 'delivered' }
  /** Network error, timeout, non-2xx, missing secret: retried on the schedule, dead after the 6th try. */
  | { kind: 'failed'; problem: string; retryAfterMs?: number }
  /** The receiver answered 410 Gone: the delivery is dead and the subscription disabled. */
  | { kind: 'gone'; problem: string };

export interface ObjectEventQueue {
  claim(limit: number, leaseMs: number): Promise<ClaimedDelivery[]>;
  finish(delivery: ClaimedDelivery, outcome: DeliveryOutcome): Promise<void>;
  /** Gives claims back unsent (a stopping worker): due again at once, the try not counted. */
  release(deliveries: ClaimedDelivery[]): Promise<void>;
  /** Called when new deliveries were committed (in any process); returns an unsubscribe function. */
  onQueued(listener: () => void): () => void;
}

declare module '../../kernel/index.ts' {
  interface PluginServices {
    objectEventQueue: ObjectEventQueue;
  }
}
