/** Every event kind a subscription may tick (plugins/object-events/events.ts, the spec's "Events"). */
export const EVENT_TYPES = [
  'object.created',
  'object.updated',
  'object.published',
  'object.unpublished',
  'object.transitioned',
  'object.deleted',
  'object.bulk',
  'asset.created',
  'asset.updated',
  'asset.moved',
  'asset.deleted',
  'asset.bulk',
  'page.published',
  'page.unpublished',
] as const;

/** A subscription as `/object-event-subscriptions` reads it (plugins/object-events/README.md). */
export interface Subscription {
  id: string;
  name: string;
  enabled: boolean;
  classId: string | null;
  events: string[];
  endpointId: string;
  routeId: string;
  ignoreActors: string[];
  signingSecretRef: string | null;
  loopGuard: { tripped: boolean; lastTrippedAt: string | null };
  createdAt: string;
  updatedAt: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'retrying' | 'dead' | 'stopped';

/** A row of the delivery log: never the event's content nor the receiver's answer body. */
export interface Delivery {
  id: string;
  eventId: string;
  subscriptionId: string;
  type: string;
  recordId: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastProblem: string | null;
  lastAttemptAt: string | null;
  createdAt: string;
}

/** The spec's words for the log screen ("waiting", "gave up"); the API's filter values are the keys. */
export const STATUS_LABELS: Record<DeliveryStatus, { label: string; color: string }> = {
  pending: { label: 'waiting', color: 'blue' },
  delivered: { label: 'delivered', color: 'green' },
  retrying: { label: 'retrying', color: 'orange' },
  dead: { label: 'gave up', color: 'red' },
  stopped: { label: 'stopped', color: 'gray' },
};

export const SUBSCRIPTIONS_KEY = ['object-events', 'subscriptions'];
