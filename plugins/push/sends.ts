import webpush from 'web-push';
import type { Logger, ServiceMap } from '../../kernel/index.ts';
import type { PushSubscriptionRow } from './store/push-store.ts';

type OutboundFetch = NonNullable<ServiceMap['outboundFetch']>;

/** What became of one send: `unsent` subscribers were not tried before the budget ran out. */
export interface SendCounts {
  total: number;
  sent: number;
  removed: number;
  failed: number;
  unsent: number;
}

/** One push service call waits at most this long (and never past the send's budget). */
const CALL_TIMEOUT_MS = 10_000;

export interface Delivery {
  outbound: OutboundFetch;
  vapid: { subject: string; publicKey: string; privateKey: string };
  payload: string;
  ttlSeconds: number;
  lanes: number;
  /** When the whole send must have ended (`performance.now()` time): nothing starts after it. */
  deadline: number;
  /** Production: the push service must be on a public address (an anonymous visitor chose it). */
  publicOnly: boolean;
  signal: AbortSignal;
  log: Logger;
  /** Called now and then with the counts so far, so a reader of the send sees it progress. */
  progress(counts: SendCounts): Promise<void>;
}

/**
 * Sends one encrypted message to each subscriber, `lanes` at a time, within the budget: anyone may
 * subscribe, so a subscriber's slow endpoint may hold one lane for its timeout, never the others,
 * and no call runs past the deadline. A 404 or 410 means the subscription expired: its id is in
 * `expired` for the caller to remove.
 */
export async function deliver(
  subscribers: readonly PushSubscriptionRow[],
  d: Delivery,
): Promise<SendCounts & { expired: string[] }> {
  const counts: SendCounts = { total: subscribers.length, sent: 0, removed: 0, failed: 0, unsent: 0 };
  const expired: string[] = [];
  let next = 0;
  let done = 0;
  const left = () => d.deadline - performance.now();
  const one = async (s: PushSubscriptionRow) => {
    try {
      // Inside the try: a subscriber's key that cannot be encrypted to fails that subscriber only.
      const request = webpush.generateRequestDetails(
        { endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } },
        d.payload,
        { TTL: d.ttlSeconds, contentEncoding: 'aes128gcm', vapidDetails: d.vapid },
      );
      const answer = await d.outbound.fetch(request.endpoint, {
        method: request.method,
        headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)])),
        body: request.body ?? undefined,
        timeoutMs: Math.max(1, Math.floor(Math.min(CALL_TIMEOUT_MS, left()))),
        maxBytes: 16 * 1024,
        publicOnly: d.publicOnly,
      });
      if (answer.status === 404 || answer.status === 410) expired.push(s.id);
      else if (answer.status >= 200 && answer.status < 300) counts.sent++;
      else counts.failed++;
    } catch (err) {
      counts.failed++;
      d.log.warn({ err: (err as Error).message, subscription: s.id }, 'push delivery failed');
    }
  };
  // Lanes take the next subscriber until none is left, the budget is spent or the process stops.
  const lane = async () => {
    while (next < subscribers.length && left() > 0 && !d.signal.aborted) {
      await one(subscribers[next++]!);
      if (++done % 200 === 0) await d.progress({ ...counts, removed: expired.length });
    }
  };
  await Promise.all(Array.from({ length: Math.min(d.lanes, subscribers.length) }, lane));
  counts.removed = expired.length;
  counts.unsent = subscribers.length - next;
  return { ...counts, expired };
}
