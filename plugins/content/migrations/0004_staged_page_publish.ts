import type { Knex } from 'knex';

// A staged page remembers whether it goes live when promoted: an import keeps its source's published
// state there (only when the importer may publish). Promoting by someone who may publish then makes a
// published page; otherwise a draft, as before. Existing rows stay drafts on promotion (false).
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE content_staged_pages ADD COLUMN publish boolean NOT NULL DEFAULT false');
  await knex.raw(
    "CREATE INDEX content_staged_pages_source ON content_staged_pages (source text_pattern_ops) WHERE state = 'staged'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS content_staged_pages_source');
  await knex.raw('ALTER TABLE content_staged_pages DROP COLUMN publish');
}
