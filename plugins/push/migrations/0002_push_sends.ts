import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // One row per `POST /pwa/send`: what was asked and, once the background job ran, what became of it.
  // The job engine keeps the scheduling; this row is what `GET /pwa/send/:id` reads.
  await knex.schema.createTable('push_sends', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('website_id').notNullable();
    // queued, sending, done, over_budget, interrupted, failed
    t.text('status').notNullable();
    // The message until it was sent; cleared when the send ends.
    t.text('payload');
    t.integer('ttl_seconds').notNullable();
    t.integer('total').notNullable().defaultTo(0);
    t.integer('sent').notNullable().defaultTo(0);
    t.integer('removed').notNullable().defaultTo(0);
    t.integer('failed').notNullable().defaultTo(0);
    t.integer('unsent').notNullable().defaultTo(0);
    t.text('problem');
    t.uuid('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('started_at', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
    t.index(['website_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('push_sends');
}
