import { randomUUID } from 'node:crypto';
import type { Db, Tx } from '../../../kernel/index.ts';
import type { EventEnvelope } from '../events.ts';
import type { ClaimedDelivery } from '../ports.ts';
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

/** The only SQL on delivery rows: the log (list, delete, retry) and the worker's claim and outcome. */
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

  /** dead → pending with attempts from zero; undefined when the row is not dead (or gone). */
  async retryDead(id: string, now: Date, trx: Tx): Promise<DeliveryRow | undefined> {
    const [row] = await trx(TABLE)
      .where({ id, status: 'dead' })
      .update({
        status: 'pending',
        attempts: 0,
        next_attempt_at: now,
        claimed_until: null,
        claim_token: null,
        last_problem: null,
      })
      .returning(LOG_COLUMNS);
    if (row) await trx.raw('SELECT pg_notify(?, ?)', ['object_event_deliveries', '']);
    return row;
  }

  /**
   * Claims up to `limit` due deliveries for `leaseMs`: rows locked by another claim are skipped, so two
   * workers never take the same row; a claim whose lease passed (its process died) is due again.
   */
  async claim(limit: number, now: Date, leaseMs: number): Promise<ClaimedDelivery[]> {
    const token = randomUUID();
    const result = await this.db.raw(
      `WITH due AS (
         SELECT id FROM ${TABLE}
         WHERE status IN ('pending', 'retrying') AND next_attempt_at <= ?::timestamptz
           AND (claimed_until IS NULL OR claimed_until < ?::timestamptz)
           -- A row whose subscription was deleted while the write ran waits for the hourly purge, out of the way.
           AND EXISTS (SELECT 1 FROM object_event_subscriptions s WHERE s.id = ${TABLE}.subscription_id)
         ORDER BY next_attempt_at
         LIMIT ?
         FOR UPDATE SKIP LOCKED
       )
       UPDATE ${TABLE} d SET claimed_until = ?::timestamptz, claim_token = ?::uuid, attempts = d.attempts + 1, last_attempt_at = ?::timestamptz
       FROM due, object_event_subscriptions s, object_events e
       WHERE d.id = due.id AND s.id = d.subscription_id AND e.id = d.event_id
       RETURNING d.id, d.event_id, d.subscription_id, d.attempts, s.endpoint_id, s.route_id, s.signing_secret_ref, e.envelope`,
      [now, now, limit, new Date(now.getTime() + leaseMs), token, now],
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
      attempt: r.attempts,
      claimToken: token,
      endpointId: r.endpoint_id,
      routeId: r.route_id,
      signingSecretRef: r.signing_secret_ref,
      envelope: r.envelope,
    }));
  }

  /** Applies an outcome if the claim is still this worker's; false when the row was reclaimed or deleted. */
  async settle(
    delivery: ClaimedDelivery,
    next: { status: DeliveryStatus; nextAttemptAt: Date | null; problem: string | null },
  ): Promise<boolean> {
    const changed = await this.db(TABLE).where({ id: delivery.id, claim_token: delivery.claimToken }).update({
      status: next.status,
      next_attempt_at: next.nextAttemptAt,
      last_problem: next.problem,
      claimed_until: null,
      claim_token: null,
    });
    return changed > 0;
  }

  /** Applies many outcomes in one statement (each only if the claim is still the same). */
  async settleMany(
    items: { delivery: ClaimedDelivery; status: DeliveryStatus; nextAttemptAt: Date | null; problem: string | null }[],
  ): Promise<void> {
    if (items.length === 0) return;
    await this.db.raw(
      `UPDATE ${TABLE} d SET status = v.status, next_attempt_at = v.next_attempt_at, last_problem = v.problem, claimed_until = NULL, claim_token = NULL
       FROM unnest(?::uuid[], ?::uuid[], ?::text[], ?::timestamptz[], ?::text[]) AS v(id, token, status, next_attempt_at, problem)
       WHERE d.id = v.id AND d.claim_token = v.token`,
      [
        items.map((i) => i.delivery.id),
        items.map((i) => i.delivery.claimToken),
        items.map((i) => i.status),
        // null entries become SQL NULL; knex's binding type does not say arrays may hold null.
        items.map((i) => i.nextAttemptAt?.toISOString() ?? null) as string[],
        items.map((i) => i.problem) as string[],
      ],
    );
  }

  /** Claims given back unsent: due at once, the try not counted. */
  async release(deliveries: ClaimedDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    await this.db.raw(
      `UPDATE ${TABLE} d SET claimed_until = NULL, claim_token = NULL, attempts = greatest(d.attempts - 1, 0)
       FROM unnest(?::uuid[], ?::uuid[]) AS v(id, token) WHERE d.id = v.id AND d.claim_token = v.token`,
      [deliveries.map((d) => d.id), deliveries.map((d) => d.claimToken)],
    );
  }

  /** After a 410: the subscription's other waiting deliveries are given up too. */
  async giveUpWaiting(subscriptionId: string, problem: string): Promise<number> {
    return this.db(TABLE)
      .where({ subscription_id: subscriptionId })
      .whereIn('status', ['pending', 'retrying'])
      .whereNull('claim_token')
      .update({ status: 'dead', next_attempt_at: null, last_problem: problem });
  }
}
