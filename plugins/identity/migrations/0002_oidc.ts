import type { Knex } from 'knex';

// Single sign-on with one OpenID Connect provider: its settings (one row) and the links between a
// provider's subject (`sub`) and a local account. A link is made once, by a verified e-mail, and
// followed by `sub` afterwards, so an e-mail changed at the provider never moves it to another account.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('identity_oidc_settings', (t) => {
    t.integer('id').primary();
    t.boolean('enabled').notNullable().defaultTo(false);
    t.text('issuer').notNullable().defaultTo('');
    t.text('client_id').notNullable().defaultTo('');
    // Sealed by the kernel's secret box (OIDC_SETTINGS_ENCRYPTION_KEY); never returned.
    t.text('client_secret_sealed');
    t.specificType('scopes', 'text[]').notNullable().defaultTo('{openid,email,profile}');
    t.text('role_claim').notNullable().defaultTo('groups');
    t.jsonb('role_mapping').notNullable().defaultTo('{}');
    t.boolean('provision_users').notNullable().defaultTo(false);
    t.specificType('default_roles', 'text[]').notNullable().defaultTo('{}');
    t.text('local_login').notNullable().defaultTo('all');
    t.text('button_label').notNullable().defaultTo('Sign in with single sign-on');
    t.text('dashboard_url').notNullable().defaultTo('/');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('ALTER TABLE identity_oidc_settings ADD CONSTRAINT identity_oidc_settings_one_row CHECK (id = 1)');
  await knex.raw(
    "ALTER TABLE identity_oidc_settings ADD CONSTRAINT identity_oidc_local_login CHECK (local_login IN ('all', 'admins', 'none'))",
  );
  await knex('identity_oidc_settings').insert({ id: 1 });

  await knex.schema.createTable('identity_oidc_links', (t) => {
    t.text('issuer').notNullable();
    t.text('subject').notNullable();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['issuer', 'subject']);
    // One identity per account and provider: a second subject claiming the same account is refused.
    t.unique(['user_id', 'issuer']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('identity_oidc_links');
  await knex.schema.dropTable('identity_oidc_settings');
}
