import type { Knex } from 'knex';

// Mail settings per scope, the outbox (which is also the mail log) and the editable templates.
// Secrets are sealed by the kernel's secret box (MAIL_SETTINGS_ENCRYPTION_KEY) in their own columns.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mail_settings', (t) => {
    // `default`, or the website's id: one row per scope.
    t.text('scope').primary();
    t.uuid('website_id');
    t.text('provider').notNullable();
    // Non-secret settings: SMTP host, port, ... or the provider's plain config fields.
    t.jsonb('config').notNullable().defaultTo('{}');
    // Sealed JSON object of the secret fields (SMTP password, provider keys); null when none is set.
    t.text('secrets_sealed');
    t.text('from_address');
    t.text('from_name');
    t.text('reply_to');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('mail_outbox', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    // Insertion order for the log (newest first) and a stable tie-break.
    t.specificType('seq', 'bigserial').notNullable();
    t.uuid('website_id');
    t.text('kind').notNullable();
    t.text('template_key');
    t.specificType('to_addresses', 'text[]').notNullable();
    t.specificType('cc_addresses', 'text[]').notNullable().defaultTo('{}');
    // Lower-cased to and cc, for the recipient filter and data-subject searches.
    t.specificType('recipients', 'text[]').notNullable();
    t.text('from_address').notNullable();
    t.text('reply_to');
    t.text('subject').notNullable();
    t.text('html');
    t.text('text').notNullable();
    // The secrets the body carries (a reset link), sealed, until the mail is sent or given up; the
    // subject and body hold a placeholder instead, so the log never has them in clear.
    t.text('secrets_sealed');
    t.text('status').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true }).notNullable();
    t.text('provider');
    t.text('provider_answer');
    t.text('last_error');
    t.text('message_id').notNullable();
    t.uuid('resent_from');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('sent_at', { useTz: true });
  });
  // The worker's claim: due rows only, oldest first.
  await knex.raw(
    "create index mail_outbox_due on mail_outbox (next_attempt_at) where status in ('queued', 'retrying')",
  );
  await knex.raw('create index mail_outbox_newest on mail_outbox (seq desc)');
  await knex.raw('create index mail_outbox_created on mail_outbox (created_at)');
  await knex.raw('create index mail_outbox_recipients on mail_outbox using gin (recipients)');

  await knex.schema.createTable('mail_templates', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('key').notNullable().unique();
    t.text('name').notNullable();
    t.text('subject').notNullable();
    // A content node tree (the editor's), rendered by the snippet and page e-mail renderer.
    t.jsonb('html');
    t.text('text').notNullable();
    t.boolean('built_in').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('mail_templates');
  await knex.schema.dropTable('mail_outbox');
  await knex.schema.dropTable('mail_settings');
}
