import type { Knex } from 'knex';

// Scheduled publishing of pages: when a page (with its working copy, if any) goes live and when it is
// taken offline, set by a publisher and carried out by the one-minute schedule
// `content.scheduled-publishing` with that publisher as the actor. Deleting a page (or its website)
// removes its schedule by a statement trigger. A new, empty table: nothing to backfill.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE content_schedules (
      owner_type text NOT NULL,
      owner_id uuid NOT NULL,
      publish_at timestamptz,
      unpublish_at timestamptz,
      scheduled_by text NOT NULL,
      scheduled_by_label text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (owner_type, owner_id),
      CHECK (publish_at IS NOT NULL OR unpublish_at IS NOT NULL)
    )`);
  await knex.raw(
    'CREATE INDEX content_schedules_publish ON content_schedules (publish_at) WHERE publish_at IS NOT NULL',
  );
  await knex.raw(
    'CREATE INDEX content_schedules_unpublish ON content_schedules (unpublish_at) WHERE unpublish_at IS NOT NULL',
  );
  await knex.raw(`
    CREATE FUNCTION content_schedules_forget() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM content_schedules s USING gone g WHERE s.owner_type = TG_ARGV[0] AND s.owner_id = g.id;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER content_pages_schedules_forget AFTER DELETE ON content_pages
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION content_schedules_forget('page')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS content_pages_schedules_forget ON content_pages');
  await knex.raw('DROP FUNCTION IF EXISTS content_schedules_forget()');
  await knex.raw('DROP TABLE IF EXISTS content_schedules');
}
