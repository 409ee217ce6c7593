import type { Knex } from 'knex';

// Copies pushed to the CDN mirror target: one row per asset, for the version that was copied.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('asset_mirrors', (t) => {
    t.uuid('asset_id').primary().references('id').inTable('assets').onDelete('CASCADE');
    t.integer('version').notNullable();
    t.text('key').notNullable();
    t.timestamp('mirrored_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('asset_mirrors');
}
