import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // One row: the VAPID key pair, generated once. The private key is sealed when
  // INTEGRATION_SECRETS_ENCRYPTION_KEY is set (`v1:...`), otherwise stored as `plain:<key>`.
  await knex.schema.createTable('push_vapid_keys', (t) => {
    t.integer('id').primary();
    t.text('public_key').notNullable();
    t.text('private_key').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
  });
  await knex.schema.createTable('push_subscriptions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('website_id').notNullable();
    t.text('endpoint').notNullable();
    t.text('p256dh').notNullable();
    t.text('auth').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.unique(['website_id', 'endpoint']);
    t.index(['website_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('push_subscriptions');
  await knex.schema.dropTable('push_vapid_keys');
}
