import type { ServiceMap } from '../../../kernel/index.ts';
import { cmsSignature, standardWebhooksSignature } from './signature.ts';

type ClaimedDelivery = Awaited<ReturnType<ServiceMap['objectEventQueue']['claim']>>[number];

/** The body is built at send time from the stored envelope: the spec's fields, `instance` = host name. */
export function deliveryBody(delivery: ClaimedDelivery, instance: string): string {
  const { type, occurredAt, ...rest } = delivery.envelope;
  return JSON.stringify({ id: delivery.eventId, type, occurredAt, instance, ...rest });
}

/** The delivery headers: ours, and the Standard Webhooks set in parallel; signatures only with a secret. */
export function deliveryHeaders(delivery: ClaimedDelivery, body: string, timestamp: number, secret: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-cms-event-id': delivery.eventId,
    'x-cms-event-type': delivery.envelope.type,
    'x-cms-timestamp': String(timestamp),
    'webhook-id': delivery.eventId,
    'webhook-timestamp': String(timestamp),
  };
  if (secret !== undefined) {
    headers['x-cms-signature'] = cmsSignature(secret, timestamp, body);
    headers['webhook-signature'] = standardWebhooksSignature(secret, delivery.eventId, timestamp, body);
  }
  return headers;
}

/** Retry-After in milliseconds (delta seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d{1,10}$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}
