import type { Db, Logger } from '../../../kernel/index.ts';
import type { FieldDef } from '../model.ts';
import { existingFieldIndexes, fieldIndexSpecs } from './field-index-store.ts';
import { listPartitions, partitionOf } from './object-partitions.ts';

interface PgConnection {
  query(sql: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
}

/** Advisory lock of index builds (per database; "cmsidx" in ASCII): one process builds at a time. */
const BUILD_LOCK_KEY = 0x636d73696478;

/**
 * Index work that must not run inside a request's transaction: field indexes of a class that already
 * has objects (CREATE INDEX CONCURRENTLY: reads and writes go on, the PATCH does not wait), and the
 * partition of a deleted class (DETACH PARTITION CONCURRENTLY, then DROP: a plain DROP would take
 * ACCESS EXCLUSIVE on the whole table). Work is scheduled after the class write commits, runs one class
 * at a time on a connection of its own, and reconciles the catalog with the committed class: a build
 * that failed or was interrupted leaves an invalid index, which is dropped and built again on the next
 * schedule for that class or at the next start (`resumeAll`). `stop()` waits for the running work.
 */
export class FieldIndexBuilds {
  private queue: Promise<void> = Promise.resolve();
  private readonly pending = new Set<string>();
  private readonly running = new Set<string>();
  private stopped = false;

  constructor(private readonly deps: { db: Db; log: Logger }) {}

  /** Whether work for the class is queued or running (the class service then leaves DDL to it). */
  busy(classId: string): boolean {
    return this.pending.has(classId) || this.running.has(classId);
  }

  /** Queues a reconcile of the class's partition; several schedules before it runs make one. */
  schedule(classId: string): void {
    if (this.stopped || this.pending.has(classId)) return;
    this.pending.add(classId);
    this.queue = this.queue.then(async () => {
      this.pending.delete(classId);
      if (this.stopped) return;
      this.running.add(classId);
      try {
        await this.reconcile(classId);
      } catch (err) {
        this.deps.log.error(
          { err, classId },
          'field index build failed; it is retried on the next schema change or start',
        );
      } finally {
        this.running.delete(classId);
      }
    });
  }

  /** Every class and every partition left by a deleted class (at start). */
  async resumeAll(): Promise<void> {
    const classes: Array<{ id: string }> = await this.deps.db('data_classes').select('id');
    const partitions = await listPartitions(this.deps.db);
    for (const id of new Set([...classes.map((c) => c.id), ...partitions.map((p) => p.classId)])) this.schedule(id);
  }

  /** Resolves once everything scheduled so far is done. */
  async idle(): Promise<void> {
    let seen: Promise<void>;
    do {
      seen = this.queue;
      await seen;
    } while (seen !== this.queue);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.idle();
  }

  private async reconcile(classId: string): Promise<void> {
    const client = this.deps.db.client as {
      acquireConnection(): Promise<PgConnection>;
      releaseConnection(c: PgConnection): Promise<void>;
    };
    const conn = await client.acquireConnection();
    try {
      // Polled, never waited on: a session blocked in pg_advisory_lock holds a snapshot, and the
      // other process's CREATE INDEX CONCURRENTLY would wait for it.
      while (!(await conn.query('SELECT pg_try_advisory_lock($1) AS ok', [BUILD_LOCK_KEY])).rows[0].ok) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      try {
        // Builds are background work: one process per build, no parallel workers, so the reads
        // that go on meanwhile keep the other cores (with them a 1,000,000-object build took both
        // cores of a 2-core machine and the reads' p99 doubled).
        await conn.query('SET max_parallel_maintenance_workers = 0');
        const cls = (await conn.query('SELECT fields FROM data_classes WHERE id = $1', [classId])).rows[0] as
          | { fields: FieldDef[] }
          | undefined;
        if (!cls) await this.dropPartition(conn, classId);
        else await this.build(conn, classId, cls.fields);
      } finally {
        await conn.query('RESET max_parallel_maintenance_workers');
        await conn.query('SELECT pg_advisory_unlock($1)', [BUILD_LOCK_KEY]);
      }
    } finally {
      await client.releaseConnection(conn);
    }
  }

  private async build(conn: PgConnection, classId: string, fields: readonly FieldDef[]): Promise<void> {
    const exists = (await conn.query('SELECT to_regclass($1) IS NOT NULL AS ok', [partitionOf(classId)])).rows[0].ok;
    if (!exists) return;
    const wanted = fieldIndexSpecs(classId, fields);
    const names = new Set(wanted.map((s) => s.name));
    const have = await existingFieldIndexes(this.deps.db, classId);
    for (const old of have) {
      if (names.has(old.name) && old.valid) continue;
      await conn.query(
        old.kind === 'index'
          ? `DROP INDEX CONCURRENTLY IF EXISTS "${old.name}"`
          : `DROP STATISTICS IF EXISTS "${old.name}"`,
      );
    }
    const valid = new Set(have.filter((h) => h.valid && names.has(h.name)).map((h) => h.name));
    for (const spec of wanted) {
      if (valid.has(spec.name)) continue;
      await conn.query(spec.create(true));
    }
  }

  private async dropPartition(conn: PgConnection, classId: string): Promise<void> {
    const table = partitionOf(classId);
    const link = (
      await conn.query(
        `SELECT inhdetachpending AS pending FROM pg_inherits WHERE inhrelid = to_regclass($1) AND inhparent = 'data_objects'::regclass`,
        [table],
      )
    ).rows[0];
    // The class row is gone and the class had no objects, so nothing can write here any more. A
    // detach interrupted half-way is finished with FINALIZE.
    if (link)
      await conn.query(
        `ALTER TABLE data_objects DETACH PARTITION "${table}" ${link.pending ? 'FINALIZE' : 'CONCURRENTLY'}`,
      );
    await conn.query(`DROP TABLE IF EXISTS "${table}"`);
  }
}
