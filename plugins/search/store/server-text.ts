import type { Db, Tx } from '../../../kernel/index.ts';

/** The text search configurations of schema pg_catalog this server has. */
export async function textSearchConfigs(db: Db): Promise<string[]> {
  const rows: Array<{ cfgname: string }> = (
    await db.raw(
      `SELECT c.cfgname FROM pg_ts_config c JOIN pg_namespace n ON n.oid = c.cfgnamespace WHERE n.nspname = 'pg_catalog'`,
    )
  ).rows;
  return rows.map((r) => r.cfgname);
}

/** `to_tsquery` of `source` under each configuration, ORed, as text ('' when only stop words are left). */
export async function normalisedTsquery(db: Db, source: string, configs: readonly string[]): Promise<string> {
  const parts = configs.map(() => 'to_tsquery(?::regconfig, ?)').join(' || ');
  const row: { q: string } = (
    await db.raw(
      `SELECT (${parts})::text AS q`,
      configs.flatMap((c) => [c, source]),
    )
  ).rows[0];
  return row.q;
}

/** The database's own clock now (documents indexed after it are newer than a reindex that starts). */
export async function databaseNow(db: Db): Promise<Date> {
  return (await db.raw('SELECT clock_timestamp() AS t')).rows[0].t;
}

/** Takes the reindex lock for `trx`, or answers false when another reindex holds it. */
export async function tryReindexLock(trx: Tx, lock: number): Promise<boolean> {
  return (await trx.raw('SELECT pg_try_advisory_xact_lock(?) AS ok', [lock])).rows[0].ok;
}
