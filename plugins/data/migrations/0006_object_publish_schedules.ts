import type { Knex } from 'knex';

// Scheduled publishing: when an object (and its working copy, if it has one) goes live, and when it
// is taken offline. Set by a publisher; the one-minute schedule `data.scheduled-publishing` carries it
// out with that publisher as the actor. Keyed by the object id through the registry, so deleting the
// object removes its schedule. A new, empty table: nothing to backfill on an older database.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE data_object_schedules (
      object_id uuid PRIMARY KEY REFERENCES data_object_registry (id) ON DELETE CASCADE,
      class_id uuid NOT NULL,
      publish_at timestamptz,
      unpublish_at timestamptz,
      scheduled_by text NOT NULL,
      scheduled_by_label text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK (publish_at IS NOT NULL OR unpublish_at IS NOT NULL)
    )`);
  await knex.raw(
    'CREATE INDEX data_object_schedules_publish ON data_object_schedules (publish_at) WHERE publish_at IS NOT NULL',
  );
  await knex.raw(
    'CREATE INDEX data_object_schedules_unpublish ON data_object_schedules (unpublish_at) WHERE unpublish_at IS NOT NULL',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS data_object_schedules');
}
