import type { Clock, Db, Tx } from '../../../kernel/index.ts';

export interface PushSubscriptionRow {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** The only place that writes the push plugin's tables. */
export class PushStore {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async vapidKeys(): Promise<{ publicKey: string; privateKey: string } | undefined> {
    const row = await this.db('push_vapid_keys').where({ id: 1 }).first();
    return row && { publicKey: row.public_key, privateKey: row.private_key };
  }

  /** Keeps the first pair ever stored: two processes starting at once agree on one pair. */
  async keepVapidKeys(publicKey: string, privateKey: string): Promise<void> {
    await this.db('push_vapid_keys')
      .insert({ id: 1, public_key: publicKey, private_key: privateKey, created_at: this.clock.now() })
      .onConflict('id')
      .ignore();
  }

  /**
   * One subscription per website and endpoint: subscribing again replaces its keys. A new endpoint
   * is stored only below `max` subscriptions of the website (undefined beyond); the website's count
   * and the insert are serialised by a transaction lock, so parallel subscribes cannot pass the cap.
   */
  async subscribe(
    websiteId: string,
    s: { endpoint: string; p256dh: string; auth: string },
    max: number,
  ): Promise<string | undefined> {
    return this.db.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`push_subscriptions:${websiteId}`]);
      const known = await trx('push_subscriptions')
        .where({ website_id: websiteId, endpoint: s.endpoint })
        .update({ p256dh: s.p256dh, auth: s.auth })
        .returning('id');
      if (known[0]) return known[0].id as string;
      if ((await this.subscriberCount(websiteId, trx)) >= max) return undefined;
      const [row] = await trx('push_subscriptions')
        .insert({ website_id: websiteId, ...s, created_at: this.clock.now() })
        .returning('id');
      return row.id as string;
    });
  }

  async subscribers(websiteId: string): Promise<PushSubscriptionRow[]> {
    return this.db('push_subscriptions')
      .where({ website_id: websiteId })
      .orderBy('created_at')
      .select('id', 'endpoint', 'p256dh', 'auth');
  }

  /** How many subscriptions a website has. */
  async subscriberCount(websiteId: string, trx?: Tx): Promise<number> {
    const row = await (trx ?? this.db)('push_subscriptions')
      .where({ website_id: websiteId })
      .count<{ n: string }>('* as n')
      .first();
    return Number(row?.n ?? 0);
  }

  async remove(ids: string[]): Promise<void> {
    if (ids.length) await this.db('push_subscriptions').whereIn('id', ids).delete();
  }

  /** A queued send: its row, in the caller's transaction (the job is enqueued with it). */
  async queueSend(
    s: { websiteId: string; payload: string; ttlSeconds: number; createdBy: string | null },
    trx: Tx,
  ): Promise<PushSendRow> {
    const [row] = await trx('push_sends')
      .insert({
        website_id: s.websiteId,
        status: 'queued',
        payload: s.payload,
        ttl_seconds: s.ttlSeconds,
        created_by: s.createdBy,
        created_at: this.clock.now(),
      })
      .returning('*');
    return row;
  }

  findSend(id: string): Promise<PushSendRow | undefined> {
    return this.db('push_sends').where({ id }).first();
  }

  /** Moves a queued send to `sending`; undefined when it is not queued (a try that ran before). */
  async startSend(id: string): Promise<PushSendRow | undefined> {
    const [row] = await this.db('push_sends')
      .where({ id, status: 'queued' })
      .update({ status: 'sending', started_at: this.clock.now() })
      .returning('*');
    return row;
  }

  /** The counts so far of a running send, or its end (`status` given): the message is then dropped. */
  async recordSend(
    id: string,
    counts: Partial<Pick<PushSendRow, 'total' | 'sent' | 'removed' | 'failed' | 'unsent' | 'problem'>>,
    status?: Exclude<PushSendStatus, 'queued' | 'sending'>,
    trx?: Tx,
  ): Promise<void> {
    await (trx ?? this.db)('push_sends')
      .where({ id })
      .update({ ...counts, ...(status ? { status, payload: null, finished_at: this.clock.now() } : {}) });
  }
}

export type PushSendStatus = 'queued' | 'sending' | 'done' | 'over_budget' | 'interrupted' | 'failed';

export interface PushSendRow {
  id: string;
  website_id: string;
  status: PushSendStatus;
  payload: string | null;
  ttl_seconds: number;
  total: number;
  sent: number;
  removed: number;
  failed: number;
  unsent: number;
  problem: string | null;
  created_by: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}
