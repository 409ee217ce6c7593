import type { Knex } from 'knex';
import type { FieldDef } from '../model.ts';
import { syncFieldIndexes } from '../store/field-index-store.ts';
import { createClassPartition } from '../store/object-partitions.ts';

const COLUMNS =
  'id, class_id, translation_group_id, locale, key, parent_id, path, published, workflow_state, attributes, created_by, created_at, updated_at';

// Objects partitioned by class. With one table and per-class partial indexes, every class added
// indexes that every insert and every plan of every query paid for; now a class's field indexes live on
// its own partition, and queries name the class, so PostgreSQL plans and touches one partition.
//
// - Keys: primary key (id, class_id), unique (class_id, translation_group_id, locale) (a translation
//   group never spans classes) and the partial unique key index `data_objects_key`.
// - data_object_registry: id -> class (and group), so a lookup by id finds its partition first; kept
//   by statement triggers with transition tables on the parent (inserts and deletes through the
//   parent, which is how the plugin writes). Its primary key keeps ids unique across partitions, and
//   preview links reference it (cascade).
// - The parent rule: a self-referencing foreign key on a partitioned table locks the whole table (all
//   partitions, SHARE ROW EXCLUSIVE) whenever a partition is attached, which would stop every object
//   write while a class is created. Instead the object service locks the parent row (FOR KEY SHARE)
//   while it writes a child, and the delete trigger clears the parent_id of orphaned children, as
//   ON DELETE SET NULL did.
// - Deleting rows releases their unique claims (as in 0001), checking the group's remaining rows
//   through the registry.
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE data_preview_links DROP CONSTRAINT IF EXISTS data_preview_links_object_id_foreign');
  await knex.raw('DROP TRIGGER IF EXISTS data_objects_release_unique_values ON data_objects');
  await knex.raw('DROP FUNCTION IF EXISTS data_release_unique_values()');
  await knex.raw('ALTER TABLE data_objects RENAME TO data_objects_unpartitioned');
  for (const name of [
    'data_objects_pkey',
    'data_objects_key',
    'data_objects_class_published',
    'data_objects_class_created',
    'data_objects_parent',
  ]) {
    await knex.raw(`ALTER INDEX IF EXISTS ${name} RENAME TO ${name}_unpartitioned`);
  }

  await knex.raw(`
    CREATE TABLE data_objects (
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      class_id uuid NOT NULL,
      translation_group_id uuid NOT NULL,
      locale text NOT NULL DEFAULT 'en',
      key text,
      parent_id uuid,
      path text NOT NULL DEFAULT '/',
      published boolean NOT NULL DEFAULT false,
      workflow_state text,
      attributes jsonb NOT NULL DEFAULT '{}',
      created_by text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT data_objects_pkey PRIMARY KEY (id, class_id),
      CONSTRAINT data_objects_group_locale UNIQUE (class_id, translation_group_id, locale),
      CONSTRAINT data_objects_class_fk FOREIGN KEY (class_id) REFERENCES data_classes (id) ON DELETE RESTRICT
    ) PARTITION BY LIST (class_id)`);
  await knex.raw('CREATE UNIQUE INDEX data_objects_key ON data_objects (class_id, key, locale) WHERE key IS NOT NULL');
  await knex.raw('CREATE INDEX data_objects_class_published ON data_objects (class_id, published, id)');
  await knex.raw('CREATE INDEX data_objects_class_created ON data_objects (class_id, created_at)');
  await knex.raw('CREATE INDEX data_objects_parent ON data_objects (parent_id) WHERE parent_id IS NOT NULL');

  await knex.raw(`
    CREATE TABLE data_object_registry (
      id uuid PRIMARY KEY,
      class_id uuid NOT NULL,
      translation_group_id uuid NOT NULL
    )`);
  await knex.raw('CREATE INDEX data_object_registry_group ON data_object_registry (translation_group_id)');

  await knex.raw(`
    CREATE FUNCTION data_objects_registered() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO data_object_registry (id, class_id, translation_group_id) SELECT id, class_id, translation_group_id FROM born;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER data_objects_registered AFTER INSERT ON data_objects
    REFERENCING NEW TABLE AS born FOR EACH STATEMENT EXECUTE FUNCTION data_objects_registered()`);
  // Whoever deletes rows (routes, empty, retention job): the registry forgets them (preview links go
  // by cascade), a row's localized claims (scope = its locale) go with it and shared claims with the
  // group's last row, and children of a deleted row keep their rows without parent. The children
  // update runs once per class with the class inlined as a value, so it is planned for one partition.
  await knex.raw(`
    CREATE FUNCTION data_objects_forgotten() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE cls uuid;
    BEGIN
      DELETE FROM data_object_registry r USING gone g WHERE r.id = g.id;
      DELETE FROM data_unique_values u USING gone g
       WHERE u.translation_group_id = g.translation_group_id
         AND (u.scope = g.locale
              OR (u.scope = '' AND NOT EXISTS (SELECT 1 FROM data_object_registry r WHERE r.translation_group_id = g.translation_group_id)));
      FOR cls IN SELECT DISTINCT class_id FROM gone LOOP
        EXECUTE 'UPDATE data_objects SET parent_id = NULL WHERE class_id = $1 AND parent_id IN (SELECT id FROM gone WHERE class_id = $1)' USING cls;
      END LOOP;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER data_objects_forgotten AFTER DELETE ON data_objects
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION data_objects_forgotten()`);

  const classes: Array<{ id: string; fields: FieldDef[] }> = await knex('data_classes').select('id', 'fields');
  for (const cls of classes) await createClassPartition(knex, cls.id);
  await knex.raw(`INSERT INTO data_objects (${COLUMNS}) SELECT ${COLUMNS} FROM data_objects_unpartitioned`);
  // Links whose object is gone would break the new key; the old cascade never let them exist.
  await knex.raw(
    'DELETE FROM data_preview_links l WHERE NOT EXISTS (SELECT 1 FROM data_object_registry r WHERE r.id = l.object_id)',
  );
  await knex.raw(`
    ALTER TABLE data_preview_links ADD CONSTRAINT data_preview_links_object_fk
    FOREIGN KEY (object_id) REFERENCES data_object_registry (id) ON DELETE CASCADE`);
  // Dropping the old table drops its per-class partial indexes and statistics too.
  await knex.raw('DROP TABLE data_objects_unpartitioned');
  // Field indexes after the rows: one build per index is faster than a million index inserts.
  for (const cls of classes) await syncFieldIndexes(knex, cls.id, cls.fields);
  await knex.raw('ANALYZE data_objects');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE data_preview_links DROP CONSTRAINT IF EXISTS data_preview_links_object_fk');
  await knex.raw('ALTER TABLE data_objects RENAME TO data_objects_partitioned');
  for (const name of [
    'data_objects_pkey',
    'data_objects_key',
    'data_objects_class_published',
    'data_objects_class_created',
    'data_objects_parent',
  ]) {
    await knex.raw(`ALTER INDEX IF EXISTS ${name} RENAME TO ${name}_partitioned`);
  }
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
  await knex.raw(`INSERT INTO data_objects (${COLUMNS}) SELECT ${COLUMNS} FROM data_objects_partitioned`);
  await knex.raw('DROP TABLE data_objects_partitioned CASCADE');
  await knex.raw('DROP TABLE data_object_registry');
  await knex.raw('DROP FUNCTION IF EXISTS data_objects_registered()');
  await knex.raw('DROP FUNCTION IF EXISTS data_objects_forgotten()');
  await knex.raw('CREATE UNIQUE INDEX data_objects_key ON data_objects (class_id, key, locale) WHERE key IS NOT NULL');
  await knex.raw('CREATE INDEX data_objects_class_published ON data_objects (class_id, published, id)');
  await knex.raw('CREATE INDEX data_objects_class_created ON data_objects (class_id, created_at)');
  await knex.raw('CREATE INDEX data_objects_parent ON data_objects (parent_id) WHERE parent_id IS NOT NULL');
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
  await knex.raw(
    `ALTER TABLE data_preview_links ADD CONSTRAINT data_preview_links_object_id_foreign FOREIGN KEY (object_id) REFERENCES data_objects (id) ON DELETE CASCADE`,
  );
  // Field indexes are not rebuilt here; an earlier release's class service does not recreate them either.
}
