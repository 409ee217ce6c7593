import type { Db } from '../../kernel/index.ts';
import { purgeEventsWithoutDeliveries, purgeLoopCounters, purgeOrphanDeliveries } from './store/event-store.ts';

/**
 * Housekeeping: loop counters whose window ended a day ago, and events left without any delivery row
 * (every matching subscription was deleted while the write ran), and delivery rows whose subscription
 * was deleted while the write that queued them ran.
 */
export async function purgeLeftovers(db: Db, now: Date, windowMs: number): Promise<void> {
  await purgeLoopCounters(db, new Date(now.getTime() - windowMs - 86_400_000));
  await purgeOrphanDeliveries(db);
  await purgeEventsWithoutDeliveries(db, new Date(now.getTime() - 3600_000));
}
