import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // One row per kind (`text`, `image`, `translate`). The key is sealed when
  // INTEGRATION_SECRETS_ENCRYPTION_KEY is set (`v1:...`), otherwise stored as `plain:<key>`.
  await knex.schema.createTable('ai_settings', (t) => {
    t.text('kind').primary();
    t.jsonb('settings').notNullable();
    t.text('api_key');
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });
  // Past results (`/ai/generated`), purged after AI_GENERATED_RETENTION_DAYS.
  await knex.schema.createTable('ai_generated', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('kind').notNullable();
    t.text('prompt').notNullable();
    t.jsonb('result').notNullable();
    t.text('model').notNullable();
    t.uuid('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['created_at']);
    t.index(['kind', 'created_at']);
    t.index(['created_by']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('ai_generated');
  await knex.schema.dropTable('ai_settings');
}
