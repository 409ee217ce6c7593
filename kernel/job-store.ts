import PgBoss from 'pg-boss';
import type { Db, Tx } from './database.ts';
import type { JobProgress, QueueDepth } from './jobs.ts';

/**
 * Tries pg-boss itself may start again: only after a process died mid-try (or handed a try back on
 * shutdown). Handler failures never count here; they follow the queue's own retry schedule.
 */
export const CRASH_RETRIES = 20;

/** The schema pg-boss keeps its tables in. */
export const JOB_SCHEMA = 'pgboss';
/** pg-boss's own queue for cron schedules (created with the schema, so no process creates it at start). */
const SCHEDULE_SEND_QUEUE = '__pgboss__send-it';

/** What pg-boss calls its database: one statement with positional parameters. */
export interface JobSql {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/**
 * pg-boss's statements on a knex pool, or inside a knex transaction (a transaction's client hands out
 * its own connection), so an enqueue joins the caller's write.
 */
export function jobSql(db: Db | Tx): JobSql {
  return {
    async executeSql(text, values) {
      const connection = await db.client.acquireConnection();
      try {
        return await connection.query(text, values ?? []);
      } finally {
        await db.client.releaseConnection(connection);
      }
    },
  };
}

/**
 * Creates the named queues that do not exist yet (pg-boss keeps one partition per queue, so a queue is
 * DDL: it is made at migration time, never per request). Every queue uses the `short` policy, under
 * which a job key is unique among waiting jobs: that is what `key` de-duplicates on.
 */
export async function ensureJobQueues(db: Db | Tx, names: readonly string[]): Promise<string[]> {
  const wanted = [...new Set([SCHEDULE_SEND_QUEUE, ...names])];
  const existing = new Set(
    (
      (await db.raw(`SELECT name FROM ${JOB_SCHEMA}.queue WHERE name = ANY(?::text[])`, [wanted])).rows as {
        name: string;
      }[]
    ).map((r) => r.name),
  );
  const missing = wanted.filter((n) => !existing.has(n));
  for (const name of missing)
    await db.raw(`SELECT ${JOB_SCHEMA}.create_queue(?, ?::json)`, [
      name,
      JSON.stringify({ policy: 'short', retryLimit: CRASH_RETRIES, retryDelay: 0 }),
    ]);
  return missing;
}

/**
 * A queue's settings for every job stored in it, wherever it is enqueued from: pg-boss takes a running
 * job back after `expireSeconds` (its process died) while crash retries are left.
 */
export async function configureJobQueue(db: Db, name: string, expireSeconds: number): Promise<void> {
  await db.raw(
    `UPDATE ${JOB_SCHEMA}.queue SET retry_limit = ?, retry_delay = 0, retry_backoff = false, expire_seconds = ?
     WHERE name = ? AND (retry_limit, expire_seconds) IS DISTINCT FROM (?, ?)`,
    [CRASH_RETRIES, expireSeconds, name, CRASH_RETRIES, expireSeconds],
  );
}

/**
 * Installs the engine's schema when it is not there yet (the kernel's migration does so; a process
 * started on a database no core-api has migrated does it itself). pg-boss's plan is a transaction of
 * its own under its own advisory lock, so two processes doing this at once are safe.
 */
export async function installJobSchema(db: Db): Promise<void> {
  const { rows } = await db.raw(`SELECT to_regclass(?) IS NOT NULL AS installed`, [`${JOB_SCHEMA}.version`]);
  if (!rows[0].installed) await db.raw(PgBoss.getConstructionPlans(JOB_SCHEMA));
}

/** Gives a try up for good (pg-boss's own `fail` would retry while crash retries are left). */
export async function failJobFinally(sql: JobSql, queue: string, id: string, problem: string): Promise<void> {
  await sql.executeSql(
    `UPDATE ${JOB_SCHEMA}.job SET state = 'failed', completed_on = now(), output = $3::jsonb
     WHERE name = $1 AND id = $2 AND state = 'active'`,
    [queue, id, JSON.stringify({ problem })],
  );
}

/** Whether a job of a queue under a key waits or runs. */
export async function hasUnfinishedJob(db: Db | Tx, queue: string, key: string): Promise<boolean> {
  const { rows } = await db.raw(
    `SELECT EXISTS (SELECT 1 FROM ${JOB_SCHEMA}.job WHERE name = ? AND singleton_key = ? AND state < 'completed') AS found`,
    [queue, key],
  );
  return rows[0].found === true;
}

/**
 * Takes back the claimed jobs of a queue whose lease ran out (as pg-boss's supervision does for every
 * queue): due again at once (its due time is already past) while crash retries are left, else failed.
 * One statement, so two claimers never take back a job the other has just claimed again.
 */
export async function takeBackExpiredJobs(sql: JobSql, queue: string): Promise<void> {
  await sql.executeSql(
    `UPDATE ${JOB_SCHEMA}.job SET
       state = CASE WHEN retry_count < retry_limit THEN 'retry'::${JOB_SCHEMA}.job_state ELSE 'failed'::${JOB_SCHEMA}.job_state END,
       completed_on = CASE WHEN retry_count < retry_limit THEN NULL ELSE now() END,
       output = '{"problem":"its lease ran out"}'::jsonb
     WHERE name = $1 AND state = 'active' AND started_on + expire_in < now()`,
    [queue],
  );
}

/** Sets the lease of running jobs: `leaseMs` from now. Returns the ids that were still running. */
export async function leaseJobs(
  sql: JobSql,
  queue: string,
  ids: readonly string[],
  leaseMs: number,
): Promise<string[]> {
  const { rows } = await sql.executeSql(
    `UPDATE ${JOB_SCHEMA}.job SET expire_in = (now() - started_on) + make_interval(secs => $3)
     WHERE name = $1 AND id = ANY($2::uuid[]) AND state = 'active' RETURNING id`,
    [queue, ids, leaseMs / 1000],
  );
  return rows.map((r) => r.id as string);
}

/** Of these jobs, those running with a lease that has not run out. */
export async function leasedJobs(sql: JobSql, queue: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await sql.executeSql(
    `SELECT id FROM ${JOB_SCHEMA}.job
     WHERE name = $1 AND id = ANY($2::uuid[]) AND state = 'active' AND started_on + expire_in >= now()`,
    [queue, ids],
  );
  return new Set(rows.map((r) => r.id as string));
}

/** Completes a running job; false when it was not running (taken back, or completed before). */
export async function completeRunningJob(sql: JobSql, queue: string, id: string): Promise<boolean> {
  const { rows } = await sql.executeSql(
    `UPDATE ${JOB_SCHEMA}.job SET state = 'completed', completed_on = now()
     WHERE name = $1 AND id = $2 AND state = 'active' RETURNING id`,
    [queue, id],
  );
  return rows.length === 1;
}

/** Cancels the waiting jobs of a queue under a key. */
export async function cancelWaitingJobs(sql: JobSql, queue: string, key: string): Promise<number> {
  const { rows } = await sql.executeSql(
    `UPDATE ${JOB_SCHEMA}.job SET state = 'cancelled', completed_on = now()
     WHERE name = $1 AND singleton_key = $2 AND state < 'active' RETURNING id`,
    [queue, key],
  );
  return rows.length;
}

export async function saveJobProgress(db: Db, queue: string, key: string, done: number, total: number): Promise<void> {
  await db.raw(
    `INSERT INTO job_progress (queue, key, done, total, updated_at) VALUES (?, ?, ?, ?, now())
     ON CONFLICT (queue, key) DO UPDATE SET done = EXCLUDED.done, total = EXCLUDED.total, updated_at = now()`,
    [queue, key, done, total],
  );
}

export async function readJobProgress(db: Db, queue: string, key: string): Promise<JobProgress | undefined> {
  const row = await db('job_progress').select('done', 'total', 'updated_at').where({ queue, key }).first();
  return row ? { done: row.done, total: row.total, updatedAt: row.updated_at } : undefined;
}

/** Jobs not finished, per queue (pg-boss's internal queues left out). */
export async function readQueueDepths(db: Db): Promise<QueueDepth[]> {
  const { rows } = await db.raw(
    `SELECT name AS queue,
            count(*) FILTER (WHERE state IN ('created', 'retry'))::int AS waiting,
            count(*) FILTER (WHERE state = 'active')::int AS running
     FROM ${JOB_SCHEMA}.job WHERE state < 'completed' AND name NOT LIKE '\\_\\_pgboss%' GROUP BY name`,
  );
  return rows as QueueDepth[];
}
