import type { Knex } from 'knex';

// API clients of the /client/v1 surface and their keys. Keys are stored only as SHA-256 (they carry
// 256 random bits, so a fast hash is enough); `prefix` is what lists show. Revoked keys stay as rows
// (revoked_at) so a list can say when a key was revoked; deleting a client removes its keys.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('api_clients', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.text('auth_mode').notNullable();
    t.text('status').notNullable().defaultTo('active');
    t.jsonb('scopes').notNullable().defaultTo('[]');
    t.jsonb('limits').notNullable().defaultTo('{}');
    t.jsonb('allowed_addresses').notNullable().defaultTo('[]');
    t.timestamp('expires_at', { useTz: true });
    t.jsonb('jwt');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`ALTER TABLE api_clients ADD CONSTRAINT api_clients_auth_mode CHECK (auth_mode IN ('key', 'jwt'))`);
  await knex.raw(`ALTER TABLE api_clients ADD CONSTRAINT api_clients_status CHECK (status IN ('active', 'suspended'))`);
  await knex.raw(`CREATE INDEX api_clients_jwt_issuer ON api_clients ((jwt->>'issuer')) WHERE auth_mode = 'jwt'`);

  await knex.schema.createTable('api_client_keys', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('client_id').notNullable().references('api_clients.id').onDelete('CASCADE');
    t.text('prefix').notNullable();
    t.text('key_hash').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true });
  });
  await knex.raw('CREATE INDEX api_client_keys_client ON api_client_keys (client_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('api_client_keys');
  await knex.schema.dropTableIfExists('api_clients');
}
