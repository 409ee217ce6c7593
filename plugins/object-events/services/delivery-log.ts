import { badRequest, conflict, notFound, type Clock, type Db, type Jobs } from '../../../kernel/index.ts';
import { DELIVERY_QUEUE, type DeliveryJob } from '../ports.ts';
import type { DeliveryFilter, DeliveryRow, DeliveryStatus, DeliveryStore } from '../store/delivery-store.ts';
import type { SubscriptionService } from './subscription-service.ts';

/** A log row as the API shows it: state only, never event content or the receiver's answer. */
export interface DeliveryView {
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

/** Deliveries from before the job engine queued per transaction at start. */
const ADOPT_BATCH = 500;

export class DeliveryLog {
  constructor(
    private readonly deps: {
      db: Db;
      store: DeliveryStore;
      subscriptions: SubscriptionService;
      clock: Clock;
      jobs: Jobs;
    },
  ) {}

  async list(subscriptionId: string, filter: DeliveryFilter): Promise<DeliveryView[]> {
    await this.deps.subscriptions.require(subscriptionId);
    return (await this.deps.store.list(subscriptionId, filter)).map(view);
  }

  /** Deletes finished rows only; naming a waiting or retrying row refuses the whole call (409). */
  async delete(
    subscriptionId: string,
    body: { ids?: string[]; status?: DeliveryStatus },
  ): Promise<{ deleted: number }> {
    await this.deps.subscriptions.require(subscriptionId);
    if ((body.ids === undefined) === (body.status === undefined))
      throw badRequest('Give either ids or status', body.ids ? 'status' : 'ids');
    return this.deps.db.transaction(async (trx) => {
      if (body.ids) {
        const unfinished = (await this.deps.store.statusesOf(subscriptionId, body.ids, trx)).filter(
          (r) => r.status === 'pending' || r.status === 'retrying',
        );
        if (unfinished.length > 0)
          throw conflict('Waiting and retrying deliveries cannot be deleted', 'DELIVERY_NOT_FINISHED', 'ids');
        return { deleted: await this.deps.store.deleteRows(subscriptionId, { ids: body.ids }, trx) };
      }
      return { deleted: await this.deps.store.deleteRows(subscriptionId, { status: body.status! }, trx) };
    });
  }

  /**
   * Deliveries stored before deliveries were engine jobs get their jobs (once, whichever process
   * starts first): due when their row said. Returns how many were queued.
   */
  async queueUnqueued(): Promise<number> {
    let queued = 0;
    for (;;) {
      const batch = await this.deps.db.transaction(async (trx) => {
        const rows = await this.deps.store.adoptUnqueued(ADOPT_BATCH, trx);
        for (const row of rows)
          await this.deps.jobs.enqueue<DeliveryJob>(
            DELIVERY_QUEUE,
            { deliveryId: row.id, ticket: row.job_ticket },
            { trx, runAt: row.next_attempt_at ?? undefined },
          );
        return rows.length;
      });
      queued += batch;
      if (batch < ADOPT_BATCH) return queued;
    }
  }

  /**
   * dead → waiting again with attempts from zero, and a fresh job to send it (not audited: the spec lists
   * delivery retries as not audited).
   */
  async retry(id: string): Promise<DeliveryView> {
    return this.deps.db.transaction(async (trx) => {
      const row = await this.deps.store.retryDead(id, this.deps.clock.now(), trx);
      if (row) {
        await this.deps.jobs.enqueue<DeliveryJob>(
          DELIVERY_QUEUE,
          { deliveryId: row.id, ticket: row.job_ticket },
          { trx },
        );
        return view(row);
      }
      const current = await this.deps.store.get(id, trx);
      if (!current) throw notFound('Delivery not found');
      throw conflict(`Only a dead delivery can be retried (this one is ${current.status})`, 'DELIVERY_NOT_DEAD');
    });
  }
}

function view(row: DeliveryRow): DeliveryView {
  const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
  return {
    id: row.id,
    eventId: row.event_id,
    subscriptionId: row.subscription_id,
    type: row.event_type,
    recordId: row.record_id,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: iso(row.next_attempt_at),
    lastProblem: row.last_problem,
    lastAttemptAt: iso(row.last_attempt_at),
    createdAt: new Date(row.created_at).toISOString(),
  };
}
