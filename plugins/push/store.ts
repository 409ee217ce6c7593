import type { Clock, Db } from '../../kernel/index.ts';

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

  /** One subscription per website and endpoint: subscribing again replaces its keys. */
  async subscribe(websiteId: string, s: { endpoint: string; p256dh: string; auth: string }): Promise<string> {
    const [row] = await this.db('push_subscriptions')
      .insert({ website_id: websiteId, ...s, created_at: this.clock.now() })
      .onConflict(['website_id', 'endpoint'])
      .merge(['p256dh', 'auth'])
      .returning('id');
    return row.id;
  }

  async subscribers(websiteId: string): Promise<PushSubscriptionRow[]> {
    return this.db('push_subscriptions')
      .where({ website_id: websiteId })
      .orderBy('created_at')
      .select('id', 'endpoint', 'p256dh', 'auth');
  }

  /** How many subscriptions a website has. */
  async subscriberCount(websiteId: string): Promise<number> {
    const row = await this.db('push_subscriptions')
      .where({ website_id: websiteId })
      .count<{ n: string }>('* as n')
      .first();
    return Number(row?.n ?? 0);
  }

  async remove(ids: string[]): Promise<void> {
    if (ids.length) await this.db('push_subscriptions').whereIn('id', ids).delete();
  }
}
