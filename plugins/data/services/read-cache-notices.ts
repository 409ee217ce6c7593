import type { Db, Logger, RecordChange, Tx } from '../../../kernel/index.ts';
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
 */
export class ReadCacheNotices {
  private readonly pending = new WeakMap<Tx, Set<string>>();
  private readonly listener: ChangeListener;

  constructor(private readonly deps: { db: Db; log: Logger; cache: PublicReadCache; schema: SchemaCache }) {
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
    return this.listener.start();
  }

  stop(): Promise<void> {
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
    if (what === ALL) {
      this.deps.schema.invalidate();
      this.deps.cache.flush();
    } else {
      this.deps.cache.changed(what);
    }
  }
}
