import type { Knex } from 'knex';

// Upstream endpoints and their routes. Credentials are sealed by the kernel secret box (`auth_secret`,
// one secret per auth type); `auth_config` holds only the non-secret parts (header name, token URL,
// client id, ...). Routes go with their endpoint (ON DELETE CASCADE).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('gateway_endpoints', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable().unique();
    t.text('base_url').notNullable();
    t.text('auth_type').notNullable().defaultTo('none');
    t.jsonb('auth_config').notNullable().defaultTo('{}');
    t.text('auth_secret');
    t.jsonb('rate_limit');
    t.integer('timeout_ms').notNullable();
    t.jsonb('default_headers').notNullable().defaultTo('{}');
    t.text('preset_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('gateway_routes', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('endpoint_id').notNullable().references('gateway_endpoints.id').onDelete('CASCADE');
    t.text('name');
    t.text('method').notNullable();
    t.text('path').notNullable();
    t.text('description');
    t.jsonb('response_schema');
    t.jsonb('sample');
    t.text('schema_source');
    t.timestamp('schema_updated_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['endpoint_id', 'method', 'path']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('gateway_routes');
  await knex.schema.dropTable('gateway_endpoints');
}
