import type { Knex } from 'knex';

/**
 * Deliveries are sent by jobs of the kernel's job engine (queue `object-events.deliveries`): a row names
 * the ticket of the job that may send it. The lease columns (`claimed_until`, `claim_token`) are no
 * longer written.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE object_event_deliveries ADD COLUMN job_ticket uuid');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE object_event_deliveries DROP COLUMN job_ticket');
}
