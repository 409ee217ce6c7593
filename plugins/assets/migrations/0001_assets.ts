import type { Knex } from 'knex';

// The asset library. Bytes live in the object store under keys made from the asset id and version
// (`a/<id>/v<n>`), never from the user's path, so a move or rename is one row update and a path can
// never name a storage location. `uuid` is the stable public reference (`/public/assets/:uuid`).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('asset_folders', (t) => {
    t.text('path').primary();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('assets', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('uuid').notNullable().unique().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('path').notNullable().unique();
    t.text('folder').notNullable();
    t.text('filename').notNullable();
    t.text('mime_type').notNullable();
    t.bigInteger('size').notNullable();
    t.text('sha256').notNullable();
    t.text('visibility').notNullable().checkIn(['public', 'private']);
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.integer('width');
    t.integer('height');
    t.jsonb('thumbnails').notNullable().defaultTo('[]');
    t.integer('version').notNullable().defaultTo(1);
    t.text('storage_key').notNullable();
    t.uuid('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['folder', 'filename']);
  });

  // Named image presets for anonymous delivery (`/dam-asset/<path>?preset=<name>`).
  await knex.schema.createTable('asset_presets', (t) => {
    t.text('name').primary();
    t.integer('width');
    t.integer('height');
    t.text('fit').notNullable().defaultTo('inside');
    t.text('format').notNullable().defaultTo('auto');
    t.integer('quality').notNullable().defaultTo(80);
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('asset_presets');
  await knex.schema.dropTable('assets');
  await knex.schema.dropTable('asset_folders');
}
