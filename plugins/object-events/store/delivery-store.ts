import type { Db, Tx } from '../../../kernel/index.ts';
import type { EventEnvelope } from '../events.ts';
import type { DeliveryJob, DeliveryToSend } from '../ports.ts';
import { deleteOrphanEvents } from './subscription-store.ts';

export type DeliveryStatus = 'pending' | 'retrying' | 'delivered' | 'dead' | 'stopped';
export const FINISHED_STATUSES: readonly DeliveryStatus[] = ['delivered', 'dead', 'stopped'];

export interface DeliveryRow {
  id: string;
  event_id: string;
  subscription_id: string;
  event_type: string;
  record_id: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date | null;
  last_problem: string | null;
  last_attempt_at: Date | null;
  created_at: Date;
}

export interface DeliveryFilter {
  status?: DeliveryStatus;
  type?: string;
  recordId?: string;
  limit: number;
}

const TABLE = 'object_event_deliveries';
const LOG_COLUMNS = [
  'id',
  'event_id',
  'subscription_id',
  'event_type',
  'record_id',
  'status',
  'attempts',
  'next_attempt_at',
  'last_problem',
  'last_attempt_at',
  'created_at',
];

/** The only SQL on delivery rows: the log (list, delete, retry) and the tries of the deliveries queue. */
export class DeliveryStore {
  constructor(private readonly db: Db) {}

  list(subscriptionId: string, filter: DeliveryFilter): Promise<DeliveryRow[]> {
    const q = this.db(TABLE).select(LOG_COLUMNS).where({ subscription_id: subscriptionId });
    if (filter.status) q.andWhere({ status: filter.status });
    if (filter.type) q.andWhere({ event_type: filter.type });
    if (filter.recordId) q.andWhere({ record_id: filter.recordId });
    return q.orderBy('seq', 'desc').limit(filter.limit);
  }

  get(id: string, trx?: Tx): Promise<DeliveryRow | undefined> {
    return (trx ?? this.db)(TABLE).select(LOG_COLUMNS).where({ id }).first();
  }

  /** Statuses of these ids within the subscription (locked for the delete that follows). */
  statusesOf(subscriptionId: string, ids: string[], trx: Tx): Promise<{ id: string; status: DeliveryStatus }[]> {
    return trx(TABLE).select('id', 'status').where({ subscription_id: subscriptionId }).whereIn('id', ids).forUpdate();
  }

  async deleteRows(
    subscriptionId: string,
    where: { ids: string[] } | { status: DeliveryStatus },
    trx: Tx,
  ): Promise<number> {
    const q = trx(TABLE)
      .where({ subscription_id: subscriptionId })
      .whereIn('status', FINISHED_STATUSES as DeliveryStatus[]);
    if ('ids' in where) q.whereIn('id', where.ids);
    else q.andWhere({ status: where.status });
    const gone: { event_id: string }[] = await q.delete().returning('event_id');
    await deleteOrphanEvents(trx, [...new Set(gone.map((g) => g.event_id))]);
    return gone.length;
  }

  /**
   * Deliveries waiting from before they were engine jobs (no ticket): each gets its ticket, a batch at
   * a time, so the caller queues their jobs in the same transaction. Rows another process is adopting
   * are skipped.
   */
  async adoptUnqueued(
    limit: number,
    trx: Tx,
  ): Promise<{ id: string; job_ticket: string; next_attempt_at: Date | null }[]> {
    const { rows } = await trx.raw(
      `UPDATE ${TABLE} d SET job_ticket = gen_random_uuid()
       FROM (SELECT id FROM ${TABLE} WHERE status IN ('pending', 'retrying') AND job_ticket IS NULL
             ORDER BY next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED) unqueued
       WHERE d.id = unqueued.id
       RETURNING d.id, d.job_ticket, d.next_attempt_at`,
      [limit],
    );
    return rows;
  }

  /** dead → pending with attempts from zero under a new job ticket; undefined when the row is not dead (or gone). */
  async retryDead(id: string, now: Date, trx: Tx): Promise<(DeliveryRow & { job_ticket: string }) | undefined> {
    const [row] = await trx(TABLE)
      .where({ id, status: 'dead' })
      .update({
        status: 'pending',
        attempts: 0,
        next_attempt_at: now,
        last_problem: null,
        job_ticket: trx.raw('gen_random_uuid()'),
      })
      .returning([...LOG_COLUMNS, 'job_ticket']);
    return row;
  }

  /**
   * Begins a try of each job whose row still waits under its ticket: counts the try and returns what to
   * send, in one statement for the jobs that started together. A row whose subscription was deleted while
   * the write ran is left to the hourly purge.
   */
  async beginTries(jobs: readonly DeliveryJob[], now: Date): Promise<DeliveryToSend[]> {
    if (jobs.length === 0) return [];
    const result = await this.db.raw(
      `UPDATE ${TABLE} d SET attempts = d.attempts + 1, last_attempt_at = ?::timestamptz
       FROM unnest(?::uuid[], ?::uuid[]) AS v(id, ticket), object_event_subscriptions s, object_events e
       WHERE d.id = v.id AND d.job_ticket = v.ticket AND d.status IN ('pending', 'retrying')
         AND s.id = d.subscription_id AND e.id = d.event_id
       RETURNING d.id, d.event_id, d.subscription_id, d.attempts, s.endpoint_id, s.route_id, s.signing_secret_ref, e.envelope`,
      [now, jobs.map((j) => j.deliveryId), jobs.map((j) => j.ticket)],
    );
    return (
      result.rows as {
        id: string;
        event_id: string;
        subscription_id: string;
        attempts: number;
        endpoint_id: string;
        route_id: string;
        signing_secret_ref: string | null;
        envelope: EventEnvelope;
      }[]
    ).map((r) => ({
      id: r.id,
      eventId: r.event_id,
      subscriptionId: r.subscription_id,
      attempts: r.attempts,
      endpointId: r.endpoint_id,
      routeId: r.route_id,
      signingSecretRef: r.signing_secret_ref,
      envelope: r.envelope,
    }));
  }

  /**
   * Writes outcomes in one statement, each only while the row is under the job's ticket. A failure
   * moves only a waiting row (a 410 elsewhere may have given it up meanwhile); `delivered` is written
   * whatever the row says, as the receiver did take it.
   */
  async settleMany(items: readonly Settlement[], trx?: Tx): Promise<void> {
    if (items.length === 0) return;
    await (trx ?? this.db).raw(
      `UPDATE ${TABLE} d SET status = v.status, next_attempt_at = v.next_attempt_at, last_problem = v.problem
       FROM unnest(?::uuid[], ?::uuid[], ?::text[], ?::timestamptz[], ?::text[]) AS v(id, ticket, status, next_attempt_at, problem)
       WHERE d.id = v.id AND d.job_ticket = v.ticket AND (v.status = 'delivered' OR d.status IN ('pending', 'retrying'))`,
      [
        items.map((i) => i.job.deliveryId),
        items.map((i) => i.job.ticket),
        items.map((i) => i.status),
        // null entries become SQL NULL; knex's binding type does not say arrays may hold null.
        items.map((i) => i.nextAttemptAt?.toISOString() ?? null) as string[],
        items.map((i) => i.problem) as string[],
      ],
    );
  }

  /** After a 410: the subscription's waiting deliveries are given up (their jobs then find nothing to send). */
  async giveUpWaiting(subscriptionId: string, problem: string): Promise<number> {
    return this.db(TABLE)
      .where({ subscription_id: subscriptionId })
      .whereIn('status', ['pending', 'retrying'])
      .update({ status: 'dead', next_attempt_at: null, last_problem: problem });
  }
}

export interface Settlement {
  job: DeliveryJob;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  problem: string | null;
}

/** Deliveries waiting to be sent, by status (`pending`, `retrying`); a status with none is absent. */
export async function countQueuedDeliveries(db: Db): Promise<Map<string, number>> {
  const rows = (await db('object_event_deliveries')
    .whereIn('status', ['pending', 'retrying'])
    .select('status')
    .count({ n: '*' })
    .groupBy('status')) as { status: string; n: string | number }[];
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}
