import type { Knex } from 'knex';
import { unicodeLowerSql } from '../../../kernel/index.ts';
import { listPartitions } from '../store/object-partitions.ts';

// A trigram index on the case-folded attribute text of every object, for the data-subject search
// ("whole value anywhere inside the attributes": `LIKE '%"anna@example.test"%'` on that text, see
// data-subject-source.ts). Without it the search reads every object of every class; with it each
// class partition answers from its index (bench:data-subject: 1,000,000 objects, seconds to tenths).
//
// The table is partitioned by class, and PostgreSQL cannot build an index on a partitioned table
// CONCURRENTLY. So: the parent index is declared ON ONLY the parent (no build, invalid), each
// partition's index is built CONCURRENTLY (writes to objects go on while a year of data is indexed)
// and attached; when every partition has one, the parent index is valid. A partition attached later
// (a new class) gets its index built on ATTACH, on an empty table. An index left invalid by an
// interrupted run is dropped and built again, so running this again finishes the job.
// CONCURRENTLY cannot run inside a transaction, hence `transaction: false`.
//
// Cost: pg_trgm (a trusted extension of PostgreSQL's contrib, created like pgcrypto in the kernel's
// first migration), index space about the size of the attribute text, and a GIN insert on every
// object write (fastupdate keeps it cheap; bench/RESULTS.md has the figures).
export const config = { transaction: false };

export const ATTRIBUTES_TRGM_INDEX = 'data_objects_attributes_trgm';
const partitionIndex = (table: string) => `${table}_attributes_trgm`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  const fold = await unicodeLowerSql(knex);
  const using = `USING gin ((${fold('attributes::text')}) gin_trgm_ops)`;
  await knex.raw(`CREATE INDEX IF NOT EXISTS ${ATTRIBUTES_TRGM_INDEX} ON ONLY data_objects ${using}`);
  for (const { table } of await listPartitions(knex)) {
    // Already attached: by an earlier run, or built on ATTACH for a class created meanwhile.
    const done = await knex.raw(
      `SELECT 1 FROM pg_inherits h JOIN pg_index i ON i.indexrelid = h.inhrelid
        WHERE h.inhparent = to_regclass(?) AND i.indrelid = to_regclass(?)`,
      [ATTRIBUTES_TRGM_INDEX, table],
    );
    if (done.rows.length) continue;
    const name = partitionIndex(table);
    const built = await knex.raw(
      `SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ? AND i.indisvalid`,
      [name],
    );
    if (!built.rows.length) {
      await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`);
      await knex.raw(`CREATE INDEX CONCURRENTLY "${name}" ON "${table}" ${using}`);
    }
    await knex.raw(`ALTER INDEX ${ATTRIBUTES_TRGM_INDEX} ATTACH PARTITION "${name}"`);
  }
}

export async function down(knex: Knex): Promise<void> {
  // Dropping the parent index drops every partition's; the extension stays (others may use it).
  await knex.raw(`DROP INDEX IF EXISTS ${ATTRIBUTES_TRGM_INDEX}`);
}
