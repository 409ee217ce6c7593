import type { Knex } from 'knex';

// The worker claims due rows for a while (a lease) instead of holding their row locks while it sends:
// `claimed_by` names the worker holding the claim, `next_attempt_at` is moved to the claim's end, so
// a row whose worker died is due again then.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mail_outbox', (t) => {
    t.text('claimed_by');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mail_outbox', (t) => {
    t.dropColumn('claimed_by');
  });
}
