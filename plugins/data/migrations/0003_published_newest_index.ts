import type { Knex } from 'knex';

// The public list without filters or sort (and every keyset page of it) is "published objects of a
// class, newest first": an index on (created_at desc, id desc) where published, on every class's
// partition (a partitioned index: partitions attached later get theirs on ATTACH), answers it by
// reading the first rows of the index, and `after` cursors as a row comparison on the same columns.
// CREATE INDEX on the parent blocks object writes (not reads) while it builds, once, at migration.
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX IF NOT EXISTS data_objects_published_newest ON data_objects (created_at DESC, id DESC) WHERE published');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS data_objects_published_newest');
}
