import type { Knex } from 'knex';

// Public form uploads: one row per intent. The ticket names the row; its bytes are staged under
// `s/<id>` until a form submit attaches them to the library, or a job removes them (~2 h).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('asset_form_uploads', (t) => {
    t.uuid('id').primary();
    t.text('website_id').notNullable();
    t.text('field_id').notNullable();
    t.text('filename').notNullable();
    t.bigInteger('declared_size').notNullable();
    t.bigInteger('max_bytes').notNullable();
    t.jsonb('allowed_types').notNullable();
    t.text('folder').notNullable();
    t.text('visibility').notNullable().checkIn(['public', 'private']);
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('ticket_used_at', { useTz: true });
    t.timestamp('staged_at', { useTz: true });
    t.bigInteger('size');
    t.text('sha256');
    t.text('mime_type');
    t.timestamp('attached_at', { useTz: true });
    t.uuid('asset_id');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['created_at']);
    t.index(['website_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('asset_form_uploads');
}
