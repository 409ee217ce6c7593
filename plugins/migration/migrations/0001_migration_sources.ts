import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // A source installation to import from. The password is sealed by the secret box
  // (INTEGRATION_SECRETS_ENCRYPTION_KEY), never stored or returned in clear.
  await knex.schema.createTable('migration_sources', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable().unique();
    t.text('kind').notNullable();
    t.text('host').notNullable();
    t.integer('port').notNullable();
    t.text('database_name').notNullable();
    t.text('user_name').notNullable();
    t.text('password_sealed');
    t.boolean('ssl').notNullable().defaultTo(false);
    t.text('class_path').notNullable();
    t.text('assets_path');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('migration_sources');
}
