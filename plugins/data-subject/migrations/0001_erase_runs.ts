import type { Knex } from 'knex';

// Real erases, one row each from before the first deletion: a run that never finished (its process
// died) is completed by the next erase of the same person, whose audit row names it. The subject is
// the keyed fingerprint the audit rows carry, never the identifier.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('data_subject_erase_runs', (t) => {
    t.uuid('id').primary();
    t.text('subject').notNullable();
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.timestamp('finished_at', { useTz: true });
    t.uuid('finished_by');
  });
  await knex.raw(
    'CREATE INDEX data_subject_erase_runs_open ON data_subject_erase_runs (subject) WHERE finished_at IS NULL',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('data_subject_erase_runs');
}
