import type { Db, Logger, ReadReplica, RecordChange, Tx } from '../../../kernel/index.ts';
import { ChangeListener, notifyChange } from '../store/change-channel.ts';
import type { PublicReadCache } from './public-read-cache.ts';
import type { SchemaCache } from './schema-cache.ts';

/** Notice payload for class and component definitions: every process drops them and every answer. */
const ALL = '*';

/** The outermost transaction of a (possibly nested) knex transaction: its end is the commit. */
function outermost(trx: Tx): Tx {
  let t = trx as Tx & { parentTransaction?: Tx };
  while (t.parentTransaction) t = t.parentTransaction as Tx & { parentTransaction?: Tx };
  return t;
}

/**
 * Keeps the public read cache and the schema cache of every process in line with the database.
 *
 * - Object writes: the statement trigger of migration 0003 sends a notice with the class id from
 *   inside the writing statement; class and component writes send `*` from their transaction
 *   (`schemaChanged`). PostgreSQL delivers a notice to every listening process when, and only if, the
 *   transaction commits (store/change-channel.ts).
 * - In the writer's process, from the plugin's own record-change announcements: the class's
 *   generation is raised at once and again when the outermost transaction ends, before the request
 *   answers, so the writer's next read never sees an old answer.
 * - In every process (the writer's too): each notice heard raises the class's generation (or flushes
 *   everything). Another process drops its entries as soon as the notice arrives (a commit plus a hop
 *   on the database connection, well under a millisecond on one host).
 *
 * While the listening connection is down the read cache is off and reads go to the database; once it
 * listens again the cache flushes (notices of the outage were lost) and comes back on.
 *
 * With a read replica (DATABASE_READ_URL) the public reads refill the cache from the replica, which
 * may not have replayed the change yet when its notice arrives from the primary: an answer read
 * then would be stored under the new generation and served until the next change. So each change is
 * applied twice: at once, and again once the replica has replayed the primary's position of that
 * moment (`readReplica.caughtUp()`, retried until it has), which voids what was stored in between.
 */
export class ReadCacheNotices {
  private readonly pending = new WeakMap<Tx, Set<string>>();
  private readonly listener: ChangeListener;
  /** Changes waiting for the replica to replay them (each is applied again then). */
  private readonly awaitingReplay = new Set<string>();
  private replaying = false;
  private stopped = false;

  constructor(
    private readonly deps: {
      db: Db;
      log: Logger;
      cache: PublicReadCache;
      schema: SchemaCache;
      replica: Pick<ReadReplica, 'enabled' | 'caughtUp'>;
    },
  ) {
    this.listener = new ChangeListener({
      db: deps.db,
      log: deps.log,
      on: {
        notice: (payload) => this.apply(payload),
        up: () => {
          this.deps.schema.invalidate();
          this.deps.cache.setEnabled(true);
        },
        down: () => this.deps.cache.setEnabled(false),
      },
    });
  }

  /** Record-change subscriber for `object` changes (runs in the write's transaction). */
  readonly onObjectChange = (change: RecordChange, trx: Tx): void => {
    const classId = (change.data?.class as { id?: unknown } | undefined)?.id;
    this.forgetAtCommit(trx, typeof classId === 'string' ? classId : ALL);
  };

  /** A class or component definition changed in `trx`: every process drops its definitions and answers. */
  async schemaChanged(trx: Tx): Promise<void> {
    if (this.forgetAtCommit(trx, ALL)) await notifyChange(trx, ALL);
  }

  /** Connects the listening connection; the cache is on once it listens. */
  start(): Promise<void> {
    this.stopped = false;
    return this.listener.start();
  }

  stop(): Promise<void> {
    this.stopped = true;
    return this.listener.stop();
  }

  /** Whether notices are heard (tests wait for a reconnect with it). */
  get listening(): boolean {
    return this.listener.listening;
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
      top.executionPromise
        .finally(() => {
          for (const c of classes) this.apply(c);
        })
        .catch(() => undefined);
    }
    if (pending.has(what)) return false;
    pending.add(what);
    return true;
  }

  private apply(what: string): void {
    this.forget(what);
    if (!this.deps.replica.enabled || this.stopped) return;
    this.awaitingReplay.add(what);
    if (!this.replaying) void this.afterReplay();
  }

  /** Applies the changes heard so far again once the replica has replayed them (one round at a time). */
  private async afterReplay(): Promise<void> {
    this.replaying = true;
    try {
      while (this.awaitingReplay.size > 0 && !this.stopped) {
        const round = [...this.awaitingReplay];
        this.awaitingReplay.clear();
        // A replica that is behind (or down) keeps being asked; the cache keeps what it read meanwhile,
        // as stale as the replica itself, and no staler.
        let warned = false;
        while (!(await this.deps.replica.caughtUp()) && !this.stopped) {
          if (!warned) this.deps.log.warn('the read replica is more than 2 s behind the primary; waiting for it');
          warned = true;
          await new Promise((resolve) => setTimeout(resolve, 200).unref());
        }
        for (const what of round) this.forget(what);
      }
    } finally {
      this.replaying = false;
    }
  }

  private forget(what: string): void {
    if (what === ALL) {
      this.deps.schema.invalidate();
      this.deps.cache.flush();
    } else {
      this.deps.cache.changed(what);
    }
  }
}
