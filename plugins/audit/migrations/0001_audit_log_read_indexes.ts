import type { Knex } from 'knex';

// Two indexes the kernel's audit_log migration lacks, found with EXPLAIN on a million rows
// (`npm run bench:audit`):
// - targetId without targetType could not use (target_type, target_id, at) and scanned the table;
// - counting an actor by e-mail read every matching heap page, because an expression index only
//   serves an index-only scan when the column itself is in the index: INCLUDE (actor_label, actor_id)
//   makes `total` for the actor filter index-only (see AuditLogStore.count).
// Built CONCURRENTLY so audit writes of running instances are not blocked while a large log is
// indexed; that cannot run inside a transaction, hence `transaction: false`. An index left invalid by
// an interrupted earlier attempt is dropped and built again.
export const config = { transaction: false };

const INDEXES: Array<[name: string, definition: string]> = [
  ['audit_log_target_id', '(target_id, at DESC)'],
  ['audit_log_actor_label_covering', '(lower(actor_label), at DESC) INCLUDE (actor_label, actor_id)'],
];

export async function up(knex: Knex): Promise<void> {
  for (const [name, definition] of INDEXES) {
    await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
    await knex.raw(`CREATE INDEX CONCURRENTLY ${name} ON audit_log ${definition}`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of INDEXES) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
}
