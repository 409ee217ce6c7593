import type { Knex } from 'knex';
import { eventually } from './kernel.ts';

/**
 * An import job's row, locked by the test. Every step of an import (its start, each batch's commit)
 * takes that row's lock, so while the test holds it the import stands still. `stepUntil` hands the row
 * over one step at a time (the test's next lock request queues behind the import's, and PostgreSQL
 * grants them in turn) until the import has `atLeast` objects. Polling instead raced a fast machine,
 * where the import ran from "part way" to its end between two polls.
 */
export async function holdImportJob(db: Knex, jobId: string) {
  const lock = async () => {
    const trx = await db.transaction();
    const row = await trx('migration_import_jobs').where({ id: jobId }).forUpdate().first('state', 'done');
    return { trx, row };
  };
  const waiting = (n: number) =>
    eventually(
      async () => {
        const { rows } = await db.raw(
          "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
        );
        return rows[0].n >= n;
      },
      { timeoutMs: 90_000, intervalMs: 10, what: `${n} sessions waiting for the job's row` },
    );
  let held = await lock();
  return {
    async stepUntil(atLeast: number) {
      while (!(held.row.state === 'running' && held.row.done >= atLeast)) {
        if (!['queued', 'running'].includes(held.row.state)) throw new Error(`the import ended (${held.row.state})`);
        await waiting(1);
        const next = lock();
        await waiting(2);
        await held.trx.commit();
        held = await next;
      }
    },
    release: async () => void (await held.trx.commit()),
  };
}
