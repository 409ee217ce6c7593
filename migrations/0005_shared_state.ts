import type { Knex } from 'knex';

// Short-lived state every process of an installation shares (kernel/shared-state.ts): values with an
// expiry (pending sign-ins, sign-in provider state) and fixed-window counters (rate limits, lockouts).
// UNLOGGED: nothing here must outlive a crash of the server, and a write skips the WAL. Times are
// milliseconds of the kernel clock (tests move it), not the server's now().
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE UNLOGGED TABLE kernel_shared_values (
      key text PRIMARY KEY,
      value jsonb NOT NULL,
      expires_at bigint NOT NULL
    )`);
  await knex.raw(`
    CREATE UNLOGGED TABLE kernel_shared_counters (
      key text PRIMARY KEY,
      window_start bigint NOT NULL,
      count integer NOT NULL,
      expires_at bigint NOT NULL
    )`);
  await knex.raw('CREATE INDEX kernel_shared_values_expiry ON kernel_shared_values (expires_at)');
  await knex.raw('CREATE INDEX kernel_shared_counters_expiry ON kernel_shared_counters (expires_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS kernel_shared_counters');
  await knex.raw('DROP TABLE IF EXISTS kernel_shared_values');
}
