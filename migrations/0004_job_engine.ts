import type { Knex } from 'knex';
import { installJobSchema } from '../kernel/job-store.ts';

// The job engine's tables (pg-boss, schema `pgboss`) and the progress long jobs report. pg-boss's
// construction plan is its own transaction under its own advisory lock, so this migration runs outside
// knex's; a process that installed the schema first (pg-boss does so at start) leaves nothing to do.
export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  await installJobSchema(knex);
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS job_progress (
      queue text NOT NULL,
      key text NOT NULL,
      done integer NOT NULL CHECK (done >= 0),
      total integer NOT NULL CHECK (total >= 0),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (queue, key)
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS job_progress');
  await knex.raw('DROP SCHEMA IF EXISTS pgboss CASCADE');
}
