import type { Db, Tx } from '../../../kernel/index.ts';

export interface SubscriptionRow {
  id: string;
  name: string;
  enabled: boolean;
  class_id: string | null;
  events: string[];
  endpoint_id: string;
  route_id: string;
  ignore_actors: string[];
  signing_secret_ref: string | null;
  loop_tripped_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type SubscriptionWrite = Partial<
  Pick<
    SubscriptionRow,
    'name' | 'enabled' | 'class_id' | 'events' | 'endpoint_id' | 'route_id' | 'ignore_actors' | 'signing_secret_ref'
  >
>;

const TABLE = 'object_event_subscriptions';
/** Subscriptions changed: every process drops its cached list (sent at commit). */
export const SUBSCRIPTIONS_CHANGED = 'object_event_subscriptions';

/** The only SQL on subscriptions. Every write notifies the other processes' caches at commit. */
export class SubscriptionStore {
  constructor(private readonly db: Db) {}

  list(trx?: Tx): Promise<SubscriptionRow[]> {
    return (trx ?? this.db)(TABLE).select('*').orderBy('name');
  }

  get(id: string, trx?: Tx): Promise<SubscriptionRow | undefined> {
    return (trx ?? this.db)(TABLE).where({ id }).first();
  }

  /** Locks the row for a change in `trx`. */
  getForUpdate(id: string, trx: Tx): Promise<SubscriptionRow | undefined> {
    return trx(TABLE).where({ id }).forUpdate().first();
  }

  async insert(values: SubscriptionWrite, now: Date, trx: Tx): Promise<SubscriptionRow> {
    const [row] = await trx(TABLE)
      .insert({ ...values, created_at: now, updated_at: now })
      .returning('*');
    await notifyChanged(trx);
    return row;
  }

  async update(id: string, values: SubscriptionWrite, now: Date, trx: Tx): Promise<SubscriptionRow> {
    const [row] = await trx(TABLE)
      .where({ id })
      .update({ ...values, updated_at: now })
      .returning('*');
    await notifyChanged(trx);
    return row;
  }

  /** Deletes the subscription, its log (waiting deliveries are cancelled with it) and events no one else needs. */
  async delete(id: string, trx: Tx): Promise<void> {
    const gone: { event_id: string }[] = await trx('object_event_deliveries')
      .where({ subscription_id: id })
      .delete()
      .returning('event_id');
    await trx(TABLE).where({ id }).delete();
    await deleteOrphanEvents(trx, [...new Set(gone.map((g) => g.event_id))]);
    await notifyChanged(trx);
  }

  /** Disables a subscription whose receiver answered 410 Gone; true when it was enabled. */
  async disable(id: string, now: Date): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const changed = await trx(TABLE).where({ id, enabled: true }).update({ enabled: false, updated_at: now });
      if (changed) await notifyChanged(trx);
      return changed > 0;
    });
  }
}

async function notifyChanged(trx: Tx): Promise<void> {
  await trx.raw('SELECT pg_notify(?, ?)', [SUBSCRIPTIONS_CHANGED, '']);
}

/** Event rows are kept while a delivery row needs them (a dead one may be retried). */
export async function deleteOrphanEvents(trx: Tx | Db, eventIds: string[]): Promise<void> {
  if (eventIds.length === 0) return;
  await trx.raw(
    `DELETE FROM object_events e WHERE e.id = ANY(?::uuid[])
       AND NOT EXISTS (SELECT 1 FROM object_event_deliveries d WHERE d.event_id = e.id)`,
    [eventIds],
  );
}
