import type { Knex } from 'knex';

/** The tables whose records may have a working copy, by the owner type stored with it. */
const OWNERS = [
  ['page', 'content_pages'],
  ['snippet', 'content_snippets'],
  ['template', 'content_templates'],
  ['layout', 'content_layouts'],
] as const;

// Working copies of published pages (and of snippets, templates and layouts saved with ?draft=true):
// the fields their next publish makes live, kept beside the live row so the site, the public page API,
// the sitemap, search and the gateway's bindings keep reading the live tables alone. One row per
// record (owner type + id). Deleting a record however it goes (a route, a website's cascade, an
// import) removes its working copy by a statement trigger on the owner table. A new, empty table:
// nothing to backfill on an older database.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE content_drafts (
      owner_type text NOT NULL,
      owner_id uuid NOT NULL,
      fields jsonb NOT NULL,
      updated_by text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (owner_type, owner_id)
    )`);
  await knex.raw('CREATE INDEX content_drafts_updated ON content_drafts (updated_at DESC)');
  await knex.raw(`
    CREATE FUNCTION content_drafts_forget() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM content_drafts d USING gone g WHERE d.owner_type = TG_ARGV[0] AND d.owner_id = g.id;
      RETURN NULL;
    END $$`);
  for (const [owner, table] of OWNERS) {
    await knex.raw(`
      CREATE TRIGGER ${table}_drafts_forget AFTER DELETE ON ${table}
      REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION content_drafts_forget('${owner}')`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [, table] of OWNERS) await knex.raw(`DROP TRIGGER IF EXISTS ${table}_drafts_forget ON ${table}`);
  await knex.raw('DROP FUNCTION IF EXISTS content_drafts_forget()');
  await knex.raw('DROP TABLE IF EXISTS content_drafts');
}
