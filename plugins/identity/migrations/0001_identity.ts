import type { Knex } from 'knex';

// The identity plugin's own tables. Users, roles and sessions are kernel tables (every service
// resolves the cookie); what only sign-in and account management need lives here. Rows hang off
// users.id with ON DELETE CASCADE so deleting a user leaves nothing behind.
export async function up(knex: Knex): Promise<void> {
  // One row per user who started or finished TOTP enrolment. Secrets are sealed by the kernel's
  // secret box (TOTP_ENCRYPTION_KEY); last_used_step stops a code from being accepted twice.
  await knex.schema.createTable('identity_mfa', (t) => {
    t.uuid('user_id').primary().references('users.id').onDelete('CASCADE');
    t.text('secret_sealed');
    t.text('pending_secret_sealed');
    t.timestamp('enabled_at', { useTz: true });
    t.bigInteger('last_used_step');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('identity_recovery_codes', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('code_hash').notNullable().unique();
    t.timestamp('used_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE INDEX identity_recovery_codes_user ON identity_recovery_codes (user_id)');

  await knex.schema.createTable('identity_reset_tokens', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('token_hash').notNullable().unique();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE INDEX identity_reset_tokens_user ON identity_reset_tokens (user_id)');
  await knex.raw('CREATE INDEX identity_reset_tokens_expiry ON identity_reset_tokens (expires_at)');

  // A single row (id = 1). Role names, not ids, so the API speaks the same language as users' roles;
  // the role service keeps the list in step on rename and delete.
  await knex.schema.createTable('identity_security_settings', (t) => {
    t.smallint('id').primary();
    t.specificType('mfa_required_roles', 'text[]').notNullable().defaultTo('{}');
    t.integer('password_min_length').notNullable().defaultTo(8);
    t.boolean('password_require_three_classes').notNullable().defaultTo(false);
    t.integer('mail_log_retention_days');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    'ALTER TABLE identity_security_settings ADD CONSTRAINT identity_security_settings_single CHECK (id = 1)',
  );
  await knex.raw(
    'ALTER TABLE identity_security_settings ADD CONSTRAINT identity_security_settings_min_length CHECK (password_min_length BETWEEN 8 AND 128)',
  );
  await knex('identity_security_settings').insert({ id: 1 });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('identity_security_settings');
  await knex.schema.dropTable('identity_reset_tokens');
  await knex.schema.dropTable('identity_recovery_codes');
  await knex.schema.dropTable('identity_mfa');
}
