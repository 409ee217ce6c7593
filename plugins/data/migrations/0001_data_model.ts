import type { Knex } from 'knex';

// Structured data. Attribute values live in `data_objects.attributes` (jsonb); filters and sorts on
// attributes are served by per-class, per-field partial expression indexes that the class service
// creates when a field is added. Unique fields are enforced by `data_unique_values`, whose primary
// key makes the database refuse duplicates, also under concurrent writes.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('data_classes', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable().unique();
    t.text('label').notNullable().defaultTo('');
    t.jsonb('fields').notNullable().defaultTo('[]');
    t.jsonb('view_config');
    t.integer('retention_days');
    t.jsonb('workflow');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('data_components', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable().unique();
    t.text('label').notNullable().defaultTo('');
    t.jsonb('fields').notNullable().defaultTo('[]');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('data_objects', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('class_id').notNullable().references('data_classes.id').onDelete('RESTRICT');
    t.uuid('translation_group_id').notNullable();
    t.text('locale').notNullable().defaultTo('en');
    t.text('key');
    t.uuid('parent_id').references('data_objects.id').onDelete('SET NULL');
    t.text('path').notNullable().defaultTo('/');
    t.boolean('published').notNullable().defaultTo(false);
    t.text('workflow_state');
    t.jsonb('attributes').notNullable().defaultTo('{}');
    t.text('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['translation_group_id', 'locale']);
  });
  await knex.raw('CREATE UNIQUE INDEX data_objects_key ON data_objects (class_id, key, locale) WHERE key IS NOT NULL');
  await knex.raw('CREATE INDEX data_objects_class_published ON data_objects (class_id, published, id)');
  await knex.raw('CREATE INDEX data_objects_class_created ON data_objects (class_id, created_at)');
  await knex.raw('CREATE INDEX data_objects_parent ON data_objects (parent_id) WHERE parent_id IS NOT NULL');

  // One row per (class, field, scope, value): scope is the locale for localized fields, '' for shared
  // ones (all rows of a translation group carry the same value, so the row names the group).
  await knex.schema.createTable('data_unique_values', (t) => {
    t.uuid('class_id').notNullable().references('data_classes.id').onDelete('CASCADE');
    t.text('field').notNullable();
    t.text('scope').notNullable();
    t.text('value').notNullable();
    t.uuid('translation_group_id').notNullable();
    t.primary(['class_id', 'field', 'scope', 'value']);
  });
  await knex.raw('CREATE INDEX data_unique_values_group ON data_unique_values (translation_group_id)');
  // Deleting object rows releases their claims whoever deletes them (routes, empty, retention job):
  // a row's localized claims (scope = its locale) go with it, shared claims with the group's last row.
  await knex.raw(`
    CREATE FUNCTION data_release_unique_values() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM data_unique_values u USING gone g
       WHERE u.translation_group_id = g.translation_group_id
         AND (u.scope = g.locale
              OR (u.scope = '' AND NOT EXISTS (SELECT 1 FROM data_objects o WHERE o.translation_group_id = g.translation_group_id)));
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER data_objects_release_unique_values AFTER DELETE ON data_objects
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION data_release_unique_values()`);

  await knex.schema.createTable('data_preview_links', (t) => {
    // The token is a share link shown to editors in the list (to copy or revoke), so it is kept as is.
    t.text('token').primary();
    t.uuid('object_id').notNullable().references('data_objects.id').onDelete('CASCADE');
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.integer('view_count').notNullable().defaultTo(0);
    t.timestamp('last_viewed_at', { useTz: true });
    t.text('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE INDEX data_preview_links_object ON data_preview_links (object_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('data_preview_links');
  await knex.raw('DROP TRIGGER IF EXISTS data_objects_release_unique_values ON data_objects');
  await knex.raw('DROP FUNCTION IF EXISTS data_release_unique_values()');
  await knex.schema.dropTable('data_unique_values');
  await knex.schema.dropTable('data_objects');
  await knex.schema.dropTable('data_components');
  await knex.schema.dropTable('data_classes');
}
