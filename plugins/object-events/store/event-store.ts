import type { Db, Tx } from '../../../kernel/index.ts';
import type { EventEnvelope } from '../events.ts';
import type { DeliveryJob } from '../ports.ts';

export interface PlannedDelivery {
  subscriptionId: string;
  status: 'pending' | 'stopped';
  problem: string | null;
}

export interface NewEvent {
  id: string;
  type: string;
  recordType: string;
  recordId: string;
  occurredAt: Date;
  envelope: EventEnvelope;
  /** Checked again by the database: only subscriptions that exist (and still match) at this moment get a row. */
  match: { classId: string | null; actorId: string | null; checkFilters: boolean };
}

/**
 * Stores one event and its deliveries in a single statement (one round trip on the write path): the
 * event insert and the multi-row delivery insert joined to the subscriptions as they are now (a
 * subscription deleted, paused or changed since the cache was filled gets nothing). Returns how many
 * delivery rows were stored and the jobs to enqueue for those that wait to be sent.
 */
export async function insertEventWithDeliveries(
  trx: Tx,
  event: NewEvent,
  planned: PlannedDelivery[],
): Promise<{ stored: number; queued: DeliveryJob[] }> {
  // A test event goes to its one subscription whatever its filters say.
  const filters = event.match.checkFilters
    ? `AND s.enabled AND ?::text = ANY(s.events)
       AND (s.class_id IS NULL OR s.class_id = ?::uuid)
       AND (?::text IS NULL OR NOT (?::text = ANY(s.ignore_actors)))`
    : '';
  const filterParams = event.match.checkFilters
    ? [event.type, event.match.classId, event.match.actorId, event.match.actorId]
    : [];
  const result = await trx.raw(
    `WITH ev AS (
       INSERT INTO object_events (id, type, record_type, record_id, occurred_at, envelope)
       VALUES (?::uuid, ?, ?, ?, ?, ?::jsonb) RETURNING id
     ), planned AS (
       SELECT * FROM unnest(?::uuid[], ?::text[], ?::text[]) AS p(subscription_id, status, problem)
     ), subs AS (
       SELECT s.id, p.status, p.problem FROM object_event_subscriptions s JOIN planned p ON p.subscription_id = s.id
       WHERE TRUE ${filters}
     ), ins AS (
       INSERT INTO object_event_deliveries (event_id, subscription_id, event_type, record_id, status, next_attempt_at, last_problem, created_at, job_ticket)
       SELECT ev.id, subs.id, ?, ?, subs.status, CASE WHEN subs.status = 'pending' THEN ?::timestamptz END, subs.problem, ?::timestamptz,
              CASE WHEN subs.status = 'pending' THEN gen_random_uuid() END
       FROM ev, subs
       RETURNING id, job_ticket
     )
     SELECT count(*)::int AS stored,
            coalesce(json_agg(json_build_object('deliveryId', id, 'ticket', job_ticket)) FILTER (WHERE job_ticket IS NOT NULL), '[]') AS queued
     FROM ins`,
    [
      event.id,
      event.type,
      event.recordType,
      event.recordId,
      event.occurredAt,
      JSON.stringify(event.envelope),
      planned.map((p) => p.subscriptionId),
      planned.map((p) => p.status),
      // null entries become SQL NULL; knex's binding type does not say arrays may hold null.
      planned.map((p) => p.problem) as string[],
      ...filterParams,
      event.type,
      event.recordId,
      event.occurredAt,
      event.occurredAt,
    ],
  );
  return result.rows[0] as { stored: number; queued: DeliveryJob[] };
}

/**
 * Counts one event in each window (scope, subject, record) and returns the counts including it. A
 * window starts with its first event and lasts `windowMs`; an older one restarts at 1.
 */
export async function countInWindows(
  trx: Tx,
  scope: 'client' | 'subscription',
  subjects: string[],
  recordKey: string,
  now: Date,
  windowMs: number,
): Promise<Map<string, number>> {
  const windowStartBefore = new Date(now.getTime() - windowMs);
  const result = await trx.raw(
    `INSERT INTO object_event_loop_counters AS c (scope, subject, record_key, window_start, count)
     SELECT ?, s, ?, ?::timestamptz, 1 FROM unnest(?::text[]) AS s
     ON CONFLICT (scope, subject, record_key) DO UPDATE SET
       count = CASE WHEN c.window_start <= ?::timestamptz THEN 1 ELSE c.count + 1 END,
       window_start = CASE WHEN c.window_start <= ?::timestamptz THEN excluded.window_start ELSE c.window_start END
     RETURNING subject, count`,
    [scope, recordKey, now, subjects, windowStartBefore, windowStartBefore],
  );
  return new Map((result.rows as { subject: string; count: number }[]).map((r) => [r.subject, r.count]));
}

/**
 * Shows the loop-guard badge on these subscriptions; returns those that had none within the last
 * day (they get the one log line). Rows already marked within the minute are left alone, so a
 * tripping loop does not write the subscription on every event.
 */
export async function markLoopTripped(trx: Tx, subscriptionIds: string[], now: Date): Promise<string[]> {
  const result = await trx.raw(
    `WITH before AS (
       SELECT id, loop_tripped_at FROM object_event_subscriptions
       WHERE id = ANY(?::uuid[]) AND (loop_tripped_at IS NULL OR loop_tripped_at < ?::timestamptz)
       FOR UPDATE
     )
     UPDATE object_event_subscriptions s SET loop_tripped_at = ?::timestamptz FROM before
     WHERE s.id = before.id
     RETURNING s.id, (before.loop_tripped_at IS NULL OR before.loop_tripped_at < ?::timestamptz) AS fresh`,
    [subscriptionIds, new Date(now.getTime() - 60_000), now, new Date(now.getTime() - 86_400_000)],
  );
  return (result.rows as { id: string; fresh: boolean }[]).filter((r) => r.fresh).map((r) => r.id);
}

/** Drops loop counters whose window ended long ago. */
export async function purgeLoopCounters(db: Db, before: Date): Promise<number> {
  return db('object_event_loop_counters').where('window_start', '<', before).delete();
}

/** Deletes delivery rows whose subscription was deleted while the write that queued them ran. */
export async function purgeOrphanDeliveries(db: Db): Promise<void> {
  await db.raw(
    `DELETE FROM object_event_deliveries d
      WHERE NOT EXISTS (SELECT 1 FROM object_event_subscriptions s WHERE s.id = d.subscription_id)`,
  );
}

/** Deletes events older than `before` left without any delivery row. */
export async function purgeEventsWithoutDeliveries(db: Db, before: Date): Promise<void> {
  await db.raw(
    `DELETE FROM object_events e WHERE e.occurred_at < ?::timestamptz
       AND NOT EXISTS (SELECT 1 FROM object_event_deliveries d WHERE d.event_id = e.id)`,
    [before],
  );
}
