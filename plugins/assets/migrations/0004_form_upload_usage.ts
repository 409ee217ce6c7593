import type { Knex } from 'knex';

// Bytes of public form uploads stored per website and UTC day: the daily quota counts what was
// received, and the count outlives the upload rows, which the purge job removes after ~2 h.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('asset_form_upload_usage', (t) => {
    t.text('website_id').notNullable();
    t.date('day').notNullable();
    t.bigInteger('bytes').notNullable().defaultTo(0);
    t.primary(['website_id', 'day']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('asset_form_upload_usage');
}
