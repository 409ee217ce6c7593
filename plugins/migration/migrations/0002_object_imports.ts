import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // An object import of a source: its state, checkpoint (phase, class, last Pimcore id) and counts.
  // Each batch commits its objects, id map rows and this row together, so a job cut off at any point
  // goes on from its last committed batch.
  await knex.schema.createTable('migration_import_jobs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('source_id').notNullable().references('id').inTable('migration_sources').onDelete('CASCADE');
    t.text('state').notNullable();
    t.jsonb('classes');
    t.boolean('publish').notNullable();
    t.boolean('background').notNullable();
    // Who started it: the import acts with the permissions they had then.
    t.jsonb('actor').notNullable();
    t.jsonb('checkpoint').notNullable();
    t.integer('done').notNullable().defaultTo(0);
    t.integer('total').notNullable().defaultTo(0);
    t.jsonb('counts').notNullable();
    t.jsonb('failed').notNullable().defaultTo('[]');
    t.jsonb('warnings').notNullable().defaultTo('[]');
    t.text('error');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('started_at', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
    t.index(['source_id', 'created_at']);
  });
  // Pimcore id -> what it became here (an object's translation group, a library file), per source:
  // a second run updates instead of duplicating, and relations are remapped through it.
  await knex.schema.createTable('migration_id_map', (t) => {
    t.uuid('source_id').notNullable().references('id').inTable('migration_sources').onDelete('CASCADE');
    t.text('kind').notNullable();
    t.bigInteger('pimcore_id').notNullable();
    t.text('target_id').notNullable();
    t.text('class_name');
    // Relations to objects not imported yet when this one was written: filled in by the relations pass.
    t.boolean('pending_relations').notNullable().defaultTo(false);
    t.primary(['source_id', 'kind', 'pimcore_id']);
  });
  await knex.raw(
    'CREATE INDEX migration_id_map_pending ON migration_id_map (source_id, pimcore_id) WHERE pending_relations',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('migration_id_map');
  await knex.schema.dropTable('migration_import_jobs');
}
