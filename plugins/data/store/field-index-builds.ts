import type { Db } from '../../../kernel/index.ts';
import type { FieldDef } from '../model.ts';
import { existingFieldIndexes, fieldIndexSpecs } from './field-index-store.ts';
import { partitionOf } from './object-partitions.ts';

interface PgConnection {
  /** The server process of the connection (pg's client), to cancel its statement. */
  processID: number;
  query(sql: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
}

/** How far a reconcile is: field indexes in place of those the class wants. */
export type BuildProgress = (done: number, total: number) => Promise<void>;

/**
 * Index work that must not run inside a request's transaction: field indexes of a class that already
 * has objects (CREATE INDEX CONCURRENTLY: reads and writes go on, the PATCH does not wait), and the
 * partition of a deleted class (DETACH PARTITION CONCURRENTLY, then DROP: a plain DROP would take
 * ACCESS EXCLUSIVE on the whole table). One reconcile brings the class's partition in line with the
 * committed class, on a connection of its own: a build that failed or was interrupted leaves an invalid
 * index, which the next reconcile drops and builds again. PostgreSQL itself runs one concurrent build
 * per table at a time, so two reconciles of one class never build side by side. An aborted `signal`
 * cancels the running statement.
 */
export async function reconcileClassIndexes(
  deps: { db: Db },
  classId: string,
  signal: AbortSignal,
  progress: BuildProgress,
): Promise<void> {
  const client = deps.db.client as {
    acquireConnection(): Promise<PgConnection>;
    releaseConnection(c: PgConnection): Promise<void>;
  };
  const conn = await client.acquireConnection();
  const cancel = () => void deps.db.raw('SELECT pg_cancel_backend(?)', [conn.processID]).catch(() => undefined);
  signal.addEventListener('abort', cancel, { once: true });
  try {
    // Builds are background work: one process per build, no parallel workers, so the reads that go
    // on meanwhile keep the other cores (with them a 1,000,000-object build took both cores of a
    // 2-core machine and the reads' p99 doubled).
    await conn.query('SET max_parallel_maintenance_workers = 0');
    try {
      const cls = (await conn.query('SELECT fields FROM data_classes WHERE id = $1', [classId])).rows[0] as
        | { fields: FieldDef[] }
        | undefined;
      if (!cls) await dropPartition(conn, classId);
      else await build(deps.db, conn, classId, cls.fields, progress);
    } finally {
      await conn.query('RESET max_parallel_maintenance_workers');
    }
  } finally {
    signal.removeEventListener('abort', cancel);
    await client.releaseConnection(conn);
  }
}

async function build(
  db: Db,
  conn: PgConnection,
  classId: string,
  fields: readonly FieldDef[],
  progress: BuildProgress,
): Promise<void> {
  const exists = (await conn.query('SELECT to_regclass($1) IS NOT NULL AS ok', [partitionOf(classId)])).rows[0].ok;
  if (!exists) return;
  const wanted = fieldIndexSpecs(classId, fields);
  const names = new Set(wanted.map((s) => s.name));
  const have = await existingFieldIndexes(db, classId);
  for (const old of have) {
    if (names.has(old.name) && old.valid) continue;
    await conn.query(
      old.kind === 'index'
        ? `DROP INDEX CONCURRENTLY IF EXISTS "${old.name}"`
        : `DROP STATISTICS IF EXISTS "${old.name}"`,
    );
  }
  const valid = new Set(have.filter((h) => h.valid && names.has(h.name)).map((h) => h.name));
  let done = valid.size;
  await progress(done, wanted.length);
  for (const spec of wanted) {
    if (valid.has(spec.name)) continue;
    await conn.query(spec.create(true));
    await progress(++done, wanted.length);
  }
}

async function dropPartition(conn: PgConnection, classId: string): Promise<void> {
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
