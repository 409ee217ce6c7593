import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // One row (id 1): the workspace's Figma access token, sealed by the secret box
  // (INTEGRATION_SECRETS_ENCRYPTION_KEY) or, without a key in production, in clear (`plain:` prefix).
  await knex.schema.createTable('figma_settings', (t) => {
    t.smallint('id').primary();
    t.text('token_stored');
    t.text('token_hint');
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });
  await knex.raw('ALTER TABLE figma_settings ADD CONSTRAINT figma_settings_one_row CHECK (id = 1)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('figma_settings');
}
