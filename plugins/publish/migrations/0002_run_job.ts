import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('publish_jobs', (t) => {
    // The kernel job (queue `publish.runs`) that schedules this job's runs: the engine hands it to a
    // runner's claim, holds its lease and takes it back when the runner goes silent.
    t.uuid('run_job_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('publish_jobs', (t) => {
    t.dropColumn('run_job_id');
  });
}
