import type { ServiceMap } from '../../../kernel/index.ts';
import { cmsSignature, standardWebhooksSignature } from './signature.ts';

type DeliveryToSend = NonNullable<Awaited<ReturnType<ServiceMap['objectEventQueue']['begin']>>>;

const LEADING = ['class', 'object', 'transition', 'bulk'];
const TRAILING = ['changed', 'actor', 'test'];

/**
 * The body is built at send time from the stored envelope: the spec's fields in the spec's order
 * (jsonb keeps no key order), `instance` = host name; an asset's or page's part sits before `changed`.
 */
export function deliveryBody(delivery: DeliveryToSend, instance: string): string {
  const envelope = delivery.envelope as Record<string, unknown>;
  const body: Record<string, unknown> = {
    id: delivery.eventId,
    type: envelope.type,
    occurredAt: envelope.occurredAt,
    instance,
  };
  const middle = Object.keys(envelope).filter(
    (k) => !LEADING.includes(k) && !TRAILING.includes(k) && k !== 'type' && k !== 'occurredAt',
  );
  for (const key of [...LEADING, ...middle, ...TRAILING]) if (envelope[key] !== undefined) body[key] = envelope[key];
  return JSON.stringify(body);
}

/** The delivery headers: ours, and the Standard Webhooks set in parallel; signatures only with a secret. */
export function deliveryHeaders(
  delivery: DeliveryToSend,
  body: string,
  timestamp: number,
  secret: string | undefined,
): Record<string, string> {
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
  // Only the IMF-fixdate form: Date.parse would also take `-5` or `2027` as a date.
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}
