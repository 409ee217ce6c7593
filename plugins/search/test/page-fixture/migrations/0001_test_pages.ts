import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE search_fixture_pages (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      website_id text NOT NULL,
      locale text NOT NULL,
      slug text NOT NULL,
      title text NOT NULL,
      body text NOT NULL DEFAULT '',
      published boolean NOT NULL DEFAULT false,
      indexable boolean NOT NULL DEFAULT true,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE search_fixture_pages');
}
