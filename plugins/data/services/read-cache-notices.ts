import pg from 'pg';
import type { Db, Logger, RecordChange, Tx } from '../../../kernel/index.ts';
import type { PublicReadCache } from './public-read-cache.ts';
import type { SchemaCache } from './schema-cache.ts';

/** The PostgreSQL channel of data changes; payload: a class id, or `*` for class and component definitions. */
export const CHANGES_CHANNEL = 'cms_data_changes';
const ALL = '*';
const RECONNECT_MS = [200, 1_000, 5_000, 15_000];

/** The outermost transaction of a (possibly nested) knex transaction: its end is the commit. */
function outermost(trx: Tx): Tx {
  let t = trx as Tx & { parentTransaction?: Tx };
  while (t.parentTransaction) t = t.parentTransaction as Tx & { parentTransaction?: Tx };
  return t;
}

/**
 * Keeps the public read cache and the schema cache of every process in line with the database.
 *
 * - Object writes: the statement trigger of migration 0003 sends `pg_notify` with the class id from
 *   inside the writing statement; class and component writes send `*` from their transaction
 *   (`schemaChanged`). PostgreSQL delivers a notice to every listening process when, and only if, the
 *   transaction commits.
 * - In the writer's process, from the plugin's own record-change announcements: the class's
 *   generation is raised at once and again when the outermost transaction ends, before the request
 *   answers, so the writer's next read never sees an old answer.
 * - In every process (the writer's too): a dedicated connection LISTENs; each notice raises the
 *   class's generation (or flushes everything). Another process drops its entries as soon as the
 *   notice arrives (a commit plus a hop on the database connection, well under a millisecond on one host).
 *
 * While that connection is down (database restart, network, a terminated backend) the read cache is
 * off and reads go to the database; once it listens again the cache flushes and comes back on.
 */
export class ReadCacheNotices {
  private client: pg.Client | null = null;
  private stopped = true;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly pending = new WeakMap<Tx, Set<string>>();

  constructor(
    private readonly deps: { db: Db; log: Logger; cache: PublicReadCache; schema: SchemaCache },
  ) {}

  /** Record-change subscriber for `object` changes (runs in the write's transaction). */
  readonly onObjectChange = (change: RecordChange, trx: Tx): void => {
    const classId = (change.data?.class as { id?: unknown } | undefined)?.id;
    this.forgetAtCommit(trx, typeof classId === 'string' ? classId : ALL);
  };

  /** A class or component definition changed in `trx`: every process drops its definitions and answers. */
  async schemaChanged(trx: Tx): Promise<void> {
    if (this.forgetAtCommit(trx, ALL)) await trx.raw('select pg_notify(?, ?)', [CHANGES_CHANNEL, ALL]);
  }

  /** Forgets now and when the outermost transaction ends; false when this transaction already said so. */
  private forgetAtCommit(trx: Tx, what: string): boolean {
    this.apply(what);
    const top = outermost(trx);
    let pending = this.pending.get(top);
    if (!pending) {
      pending = new Set();
      this.pending.set(top, pending);
      const classes = pending;
      // At commit (or rollback: a needless raise is harmless) the writer's own process forgets at once.
      top.executionPromise.finally(() => classes.forEach((c) => this.apply(c))).catch(() => undefined);
    }
    if (pending.has(what)) return false;
    pending.add(what);
    return true;
  }

  private apply(what: string): void {
    if (what === ALL) {
      this.deps.schema.invalidate();
      this.deps.cache.flush();
    } else {
      this.deps.cache.changed(what);
    }
  }

  /** Connects the listening connection; the cache is on once it listens. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.deps.cache.setEnabled(false);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  /** Whether the channel is listening (tests wait for a reconnect with it). */
  get listening(): boolean {
    return this.client !== null;
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const settings = (this.deps.db.client as unknown as { config: { connection?: unknown } }).config.connection;
    const connection = typeof settings === 'string' ? { connectionString: settings } : (settings as pg.ClientConfig | undefined);
    if (!connection) {
      this.deps.log.warn('public read cache off: the database connection settings are not at hand for LISTEN');
      return;
    }
    const client = new pg.Client({ ...connection, application_name: 'cms-data-notices' });
    client.on('notification', (n) => {
      if (n.channel === CHANGES_CHANNEL && n.payload) this.apply(n.payload);
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
    // Changes while nobody listened were never heard: start empty.
    this.deps.schema.invalidate();
    this.deps.cache.setEnabled(true);
  }

  private lost(client: pg.Client, err?: Error): void {
    if (this.client !== null && this.client !== client) return;
    const wasListening = this.client === client;
    this.client = null;
    this.deps.cache.setEnabled(false);
    client.removeAllListeners('notification');
    client.end().catch(() => undefined);
    if (this.stopped || (!wasListening && this.timer)) return;
    if (wasListening) this.deps.log.warn({ err: err?.message }, 'data change notices lost; public read cache off until the channel is back');
    const delay = RECONNECT_MS[Math.min(this.failures++, RECONNECT_MS.length - 1)];
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.connect();
    }, delay);
    this.timer.unref();
  }
}
