import type { Knex } from 'knex';

// Users, roles and sessions are kernel tables: every service resolves the session cookie, while the
// identity plugin (core-api) owns the routes that manage them.
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE EXTENSION IF NOT EXISTS pgcrypto');
  await knex.schema.createTable('users', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('email').notNullable();
    t.text('display_name').notNullable().defaultTo('');
    t.text('password_hash');
    t.boolean('active').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE UNIQUE INDEX users_email_lower ON users (lower(email))');

  await knex.schema.createTable('roles', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable().unique();
    t.text('description').notNullable().defaultTo('');
    t.specificType('permissions', 'text[]').notNullable().defaultTo('{}');
    t.boolean('builtin').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('user_roles', (t) => {
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.uuid('role_id').notNullable().references('roles.id').onDelete('CASCADE');
    t.primary(['user_id', 'role_id']);
  });
  await knex.raw('CREATE INDEX user_roles_role ON user_roles (role_id)');

  // '*' grants every key, present and future: the spec's "admin (all, plus audit:read and data_subject:manage)".
  await knex('roles').insert([
    {
      name: 'admin',
      description: 'Every permission',
      permissions: ['*', 'audit:read', 'data_subject:manage'],
      builtin: true,
    },
    {
      name: 'editor',
      description: 'Read and write content',
      permissions: ['objects:read', 'objects:write'],
      builtin: true,
    },
    { name: 'viewer', description: 'Read content', permissions: ['objects:read'], builtin: true },
  ]);

  await knex.schema.createTable('sessions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('token_hash').notNullable().unique();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_seen_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.text('ip');
    t.text('user_agent');
  });
  await knex.raw('CREATE INDEX sessions_user ON sessions (user_id)');
  await knex.raw('CREATE INDEX sessions_purge ON sessions ((coalesce(revoked_at, expires_at)))');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sessions');
  await knex.schema.dropTable('user_roles');
  await knex.schema.dropTable('roles');
  await knex.schema.dropTable('users');
}
