import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('publish_jobs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    // No foreign key across plugins: the website belongs to the content plugin.
    t.uuid('website_id').notNullable();
    t.text('website_name').notNullable();
    // queued | running | cancelling | succeeded | failed | cancelled (README: states and transitions)
    t.text('state').notNullable();
    t.text('requested_by');
    t.timestamp('requested_at', { useTz: true }).notNullable();
    // Runs of this job (a claim starts one); runs since the last queueing by a person count towards the limit.
    t.integer('attempt').notNullable().defaultTo(0);
    t.integer('attempts_left').notNullable();
    t.text('runner');
    // A hash of the claim the runner presents on every call of its run.
    t.text('claim_hash');
    t.timestamp('claimed_at', { useTz: true });
    t.timestamp('lease_until', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
    t.integer('progress_done').notNullable().defaultTo(0);
    t.integer('progress_total').notNullable().defaultTo(0);
    t.integer('pages').notNullable().defaultTo(0);
    t.integer('files').notNullable().defaultTo(0);
    t.text('output');
    t.text('error');
    t.integer('log_lines').notNullable().defaultTo(0);
    t.index(['website_id', 'requested_at']);
    t.index(['state', 'requested_at']);
  });
  // One job per website at a time (queued, running or being cancelled).
  await knex.raw(
    "create unique index publish_jobs_one_active on publish_jobs (website_id) where state in ('queued', 'running', 'cancelling')",
  );
  await knex.schema.createTable('publish_job_logs', (t) => {
    t.bigIncrements('id');
    t.uuid('job_id').notNullable().references('publish_jobs.id').onDelete('CASCADE');
    t.integer('attempt').notNullable();
    t.timestamp('at', { useTz: true }).notNullable();
    t.text('level').notNullable();
    t.text('message').notNullable();
    t.index(['job_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('publish_job_logs');
  await knex.schema.dropTable('publish_jobs');
}
