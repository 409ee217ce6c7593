import type { Knex } from 'knex';

// 1. The public list without filters or sort (and every keyset page of it) is "published objects of a
//    class, newest first": an index on (created_at desc, id desc) where published, on every class's
//    partition (a partitioned index: partitions attached later get theirs on ATTACH), answers it by
//    reading the first rows of the index, and `after` cursors as a row comparison on the same columns.
//    CREATE INDEX on the parent blocks object writes (not reads) while it builds, once, at migration.
// 2. Change notices for the public read caches of every process (services/read-cache-notices.ts): each
//    statement that writes objects sends `pg_notify('cms_data_changes', <class id>)` per class it
//    touched. PostgreSQL delivers it at commit, only if the transaction commits, and folds duplicates
//    within a transaction. A trigger rather than a statement from the service: no extra round trip in
//    the write, and writes that bypass the services (maintenance SQL) are heard too.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'CREATE INDEX IF NOT EXISTS data_objects_published_newest ON data_objects (created_at DESC, id DESC) WHERE published',
  );
  await knex.raw(`
    CREATE FUNCTION data_objects_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      changed_class uuid;
    BEGIN
      FOR changed_class IN SELECT DISTINCT class_id FROM changed LOOP
        PERFORM pg_notify('cms_data_changes', changed_class::text);
      END LOOP;
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER data_objects_notify_insert AFTER INSERT ON data_objects
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION data_objects_notify_change()`);
  await knex.raw(`CREATE TRIGGER data_objects_notify_update AFTER UPDATE ON data_objects
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION data_objects_notify_change()`);
  await knex.raw(`CREATE TRIGGER data_objects_notify_delete AFTER DELETE ON data_objects
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION data_objects_notify_change()`);
}

export async function down(knex: Knex): Promise<void> {
  for (const event of ['insert', 'update', 'delete'])
    await knex.raw(`DROP TRIGGER IF EXISTS data_objects_notify_${event} ON data_objects`);
  await knex.raw('DROP FUNCTION IF EXISTS data_objects_notify_change()');
  await knex.raw('DROP INDEX IF EXISTS data_objects_published_newest');
}
