import type { Db } from '../../kernel/index.ts';
import { purgeLoopCounters } from './store/event-store.ts';

/**
 * Housekeeping: loop counters whose window ended a day ago, and events left without any delivery row
 * (every matching subscription was deleted while the write ran), and delivery rows whose subscription
 * was deleted while the write that queued them ran.
 */
export async function purgeLeftovers(db: Db, now: Date, windowMs: number): Promise<void> {
  await purgeLoopCounters(db, new Date(now.getTime() - windowMs - 86_400_000));
  await db.raw(
    `DELETE FROM object_event_deliveries d
      WHERE NOT EXISTS (SELECT 1 FROM object_event_subscriptions s WHERE s.id = d.subscription_id)`,
  );
  await db.raw(
    `DELETE FROM object_events e WHERE e.occurred_at < ?::timestamptz
       AND NOT EXISTS (SELECT 1 FROM object_event_deliveries d WHERE d.event_id = e.id)`,
    [new Date(now.getTime() - 3600_000)],
  );
}
