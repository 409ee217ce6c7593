import type { Knex } from 'knex';

// Which files a visitor uploaded through a public form: the upload they came from. A data-subject
// erase deletes only such files (never one merely named in a field), and the upload rows themselves
// are purged after ~2 h, so the provenance lives on the asset. Set only by the form attach; no route
// writes it. Files attached before this column existed are found by the metadata the attach wrote.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('assets', (t) => {
    t.uuid('form_upload_id');
  });
  await knex.raw(
    `UPDATE assets SET form_upload_id = (metadata->>'uploadId')::uuid
      WHERE metadata->>'source' = 'form-upload'
        AND metadata->>'uploadId' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('assets', (t) => {
    t.dropColumn('form_upload_id');
  });
}
