import type { Knex } from 'knex';

// Working copies of published objects (one per language row): what someone without objects:publish
// saves to a published object, and what a publisher saves with `?draft=true`. The live row in
// data_objects stays as it is, so every public read, cache, search entry and sitemap keeps reading
// data_objects alone. Keyed by the object id through the registry, so deleting the object (any path:
// routes, retention, erase, empty class) removes its working copy by cascade. A new, empty table:
// nothing to backfill on a database a year old.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE data_object_drafts (
      object_id uuid PRIMARY KEY REFERENCES data_object_registry (id) ON DELETE CASCADE,
      class_id uuid NOT NULL,
      key text,
      parent_id uuid,
      path text NOT NULL,
      attributes jsonb NOT NULL,
      updated_by text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
  await knex.raw('CREATE INDEX data_object_drafts_updated ON data_object_drafts (updated_at DESC, object_id DESC)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS data_object_drafts');
}
