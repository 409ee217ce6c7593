import pg from 'pg';
import type { Db, Logger, Tx } from '../../../kernel/index.ts';

/**
 * The PostgreSQL channel of data changes: payload a class id (sent by the statement trigger of
 * migration 0003 for every statement that writes objects) or `*` (class and component definitions).
 */
export const CHANGES_CHANNEL = 'cms_data_changes';
const RECONNECT_MS = [200, 1_000, 5_000, 15_000];

/** Sends a notice from the write's transaction; PostgreSQL delivers it only if that commits. */
export async function notifyChange(trx: Tx, payload: string): Promise<void> {
  await trx.raw('select pg_notify(?, ?)', [CHANGES_CHANNEL, payload]);
}

export interface ChangeListenerEvents {
  notice(payload: string): void;
  /** Listening (again): notices from now on are heard. */
  up(): void;
  /** The connection is lost: notices are missed until `up`. */
  down(): void;
}

/**
 * A dedicated connection (not one of the pool: LISTEN belongs to a session) that LISTENs on the
 * channel, with the pool's connection settings and `application_name` `cms-data-notices`. When it
 * drops it reconnects after 0.2, 1, 5, then every 15 seconds.
 */
export class ChangeListener {
  private client: pg.Client | null = null;
  private stopped = true;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: { db: Db; log: Logger; on: ChangeListenerEvents }) {}

  get listening(): boolean {
    return this.client !== null;
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    if (client) this.deps.on.down();
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const settings = (this.deps.db.client as unknown as { config: { connection?: unknown } }).config.connection;
    const connection =
      typeof settings === 'string' ? { connectionString: settings } : (settings as pg.ClientConfig | undefined);
    if (!connection) {
      this.deps.log.warn('data change notices off: the database connection settings are not at hand for LISTEN');
      return;
    }
    const client = new pg.Client({ ...connection, application_name: 'cms-data-notices' });
    client.on('notification', (n) => {
      if (n.channel === CHANGES_CHANNEL && n.payload) this.deps.on.notice(n.payload);
    });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (err) {
      this.lost(client, err as Error);
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.failures = 0;
    this.deps.on.up();
  }

  private lost(client: pg.Client, err?: Error): void {
    if (this.client !== null && this.client !== client) return;
    const wasListening = this.client === client;
    this.client = null;
    client.removeAllListeners('notification');
    client.end().catch(() => undefined);
    if (wasListening) {
      this.deps.on.down();
      this.deps.log.warn(
        { err: err?.message },
        'data change notices lost; public read cache off until the channel is back',
      );
    }
    // One reconnect at a time (a failed connect reports both `error` and `end`).
    if (this.stopped || (!wasListening && this.timer)) return;
    const delay = RECONNECT_MS[Math.min(this.failures++, RECONNECT_MS.length - 1)];
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.connect();
    }, delay);
    this.timer.unref();
  }
}
