import type { ApiAnswer, ApiBody } from '../../admin-ui/app/src/sdk/index.ts';

/** An event kind, as the create body declares them. */
export type EventType = ApiBody<'/object-event-subscriptions', 'post'>['events'][number];

// A record, so the type check fails when the API gains or loses a kind and this list does not follow.
const KINDS: Record<EventType, true> = {
  'object.created': true,
  'object.updated': true,
  'object.published': true,
  'object.unpublished': true,
  'object.transitioned': true,
  'object.deleted': true,
  'object.bulk': true,
  'asset.created': true,
  'asset.updated': true,
  'asset.moved': true,
  'asset.deleted': true,
  'asset.bulk': true,
  'page.published': true,
  'page.unpublished': true,
};

/** Every event kind a subscription may tick, in the order the form shows them. */
export const EVENT_TYPES = Object.keys(KINDS) as EventType[];

/** A subscription as `/object-event-subscriptions/:id` reads it. */
export type Subscription = ApiAnswer<'/object-event-subscriptions/{id}', 'get'>;

/** A row of the delivery log: never the event's content nor the receiver's answer body. */
export type Delivery = ApiAnswer<'/object-event-subscriptions/{id}/deliveries', 'get'>['deliveries'][number];
export type DeliveryStatus = Delivery['status'];

/** The spec's words for the log screen ("waiting", "gave up"); the API's filter values are the keys. */
export const STATUS_LABELS: Record<DeliveryStatus, { label: string; color: string }> = {
  pending: { label: 'waiting', color: 'blue' },
  delivered: { label: 'delivered', color: 'green' },
  retrying: { label: 'retrying', color: 'orange' },
  dead: { label: 'gave up', color: 'red' },
  stopped: { label: 'stopped', color: 'gray' },
};

export const SUBSCRIPTIONS_KEY = ['object-events', 'subscriptions'];
