import type { Knex } from 'knex';

// Subscriptions, the events they receive and one delivery row per (event, subscription). The event
// row holds the envelope the body is built from at send time; the delivery rows (the log) hold only
// status, attempts, next try and a short problem text, never content or the receiver's answer.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('object_event_subscriptions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable().unique();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.uuid('class_id');
    t.specificType('events', 'text[]').notNullable();
    t.text('endpoint_id').notNullable();
    t.text('route_id').notNullable();
    t.specificType('ignore_actors', 'text[]').notNullable().defaultTo('{}');
    t.text('signing_secret_ref');
    // Last time the loop guard stopped a delivery of this subscription (badge shown for a day).
    t.timestamp('loop_tripped_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('object_events', (t) => {
    t.uuid('id').primary();
    t.text('type').notNullable();
    t.text('record_type').notNullable();
    t.text('record_id').notNullable();
    t.timestamp('occurred_at', { useTz: true }).notNullable();
    t.jsonb('envelope').notNullable();
  });

  await knex.schema.createTable('object_event_deliveries', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    // Insertion order (several rows share a millisecond): the log lists newest first by it.
    t.specificType('seq', 'bigserial').notNullable();
    t.uuid('event_id').notNullable().references('object_events.id').onDelete('CASCADE');
    // No foreign key: its check would key-share lock the few subscription rows in every write at
    // once (multixacts on hot rows). Deleting a subscription deletes its rows; the claim joins the
    // subscription, so a row left by a delete racing a write is never sent and the hourly job drops it.
    t.uuid('subscription_id').notNullable();
    t.text('event_type').notNullable();
    t.text('record_id').notNullable();
    t.text('status').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true });
    // Lease of the worker that claimed it: a killed process's claims come back once it passes.
    t.timestamp('claimed_until', { useTz: true });
    t.uuid('claim_token');
    t.text('last_problem');
    t.timestamp('last_attempt_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`ALTER TABLE object_event_deliveries ADD CONSTRAINT object_event_deliveries_status
    CHECK (status IN ('pending', 'retrying', 'delivered', 'dead', 'stopped'))`);
  // The worker's claim scans only due rows.
  await knex.raw(`CREATE INDEX object_event_deliveries_due ON object_event_deliveries (next_attempt_at)
    WHERE status IN ('pending', 'retrying')`);
  await knex.raw('CREATE INDEX object_event_deliveries_log ON object_event_deliveries (subscription_id, seq DESC)');
  await knex.raw('CREATE INDEX object_event_deliveries_event ON object_event_deliveries (event_id)');

  // Loop guard counters (per API client and record, per subscription and record), in the database so
  // every process counts the same; a window starts with its first event.
  await knex.schema.createTable('object_event_loop_counters', (t) => {
    t.text('scope').notNullable();
    t.text('subject').notNullable();
    t.text('record_key').notNullable();
    t.timestamp('window_start', { useTz: true }).notNullable();
    t.integer('count').notNullable();
    t.primary(['scope', 'subject', 'record_key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('object_event_loop_counters');
  await knex.schema.dropTable('object_event_deliveries');
  await knex.schema.dropTable('object_events');
  await knex.schema.dropTable('object_event_subscriptions');
}
