import type { Knex } from 'knex';

// One table of documents for every source. `config` is the text search configuration the row was
// analysed with (chosen from its locale); the vector is a stored generated column, so every writer
// (live hooks, reindex, the benchmark's COPY) gets the same analysis. `to_tsvector(text::regconfig, ...)`
// is only STABLE (the cast reads the catalog), which a generated column refuses: the wrapper declares it
// IMMUTABLE, which holds because `config` only ever names a built-in configuration from pg_ts_config.
// The name is stored as text rather than regconfig so pg_upgrade (which refuses reg* columns) works.
// `website_id` and `locale` are '' when a document has none, so the natural key is a plain unique index.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION search_document_vector(config text, title text, body text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT setweight(to_tsvector(config::regconfig, title), 'A') || setweight(to_tsvector(config::regconfig, body), 'B') $$`);
  await knex.raw(`
    CREATE TABLE search_documents (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      source_type text NOT NULL,
      source_id text NOT NULL,
      website_id text NOT NULL DEFAULT '',
      locale text NOT NULL DEFAULT '',
      group_id text,
      config text NOT NULL,
      title text NOT NULL,
      body text NOT NULL,
      url text,
      public boolean NOT NULL,
      meta jsonb NOT NULL DEFAULT '{}',
      updated_at timestamptz NOT NULL,
      indexed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      tsv tsvector GENERATED ALWAYS AS (search_document_vector(config, title, body)) STORED
    )`);
  // Rows stay in the heap up to ~8 kB instead of ~2 kB: ranking reads every candidate's vector, and a
  // vector moved to the TOAST table costs an index lookup and a decompression per row (measured: the
  // ranking of 1,000 candidates went from ~200 ms to ~40 ms at 100,000 documents).
  await knex.raw('ALTER TABLE search_documents SET (toast_tuple_target = 8160)');
  await knex.raw(
    'CREATE UNIQUE INDEX search_documents_key ON search_documents (source_type, source_id, website_id, locale)',
  );
  await knex.raw(
    'CREATE INDEX search_documents_group ON search_documents (source_type, group_id) WHERE group_id IS NOT NULL',
  );
  await knex.raw('CREATE INDEX search_documents_tsv ON search_documents USING gin (tsv)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS search_documents');
  await knex.raw('DROP FUNCTION IF EXISTS search_document_vector(text, text, text)');
}
