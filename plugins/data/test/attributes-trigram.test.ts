import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { unicodeLowerSql, type Db } from '../../../kernel/index.ts';
import { KERNEL_MIGRATIONS_DIR } from '../../../kernel/loader.ts';
import { migrateAll } from '../../../kernel/migrations.ts';
import { createTestDatabase } from '../../../test/helpers/database.ts';
import { startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';
import { objectMatchQuery, objectsHolding } from '../store/subject-store.ts';
import { ATTRIBUTES_TRGM_INDEX } from '../migrations/0004_attributes_trigram_index.ts';
import { createClassPartition } from '../store/object-partitions.ts';

const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'migrations');
const BEFORE = [
  '0001_data_model',
  '0002_objects_partitioned_by_class',
  '0003_published_newest_index_and_change_notices',
];

/** The data plugin's migrations before 0004, under the names the kernel records. */
const earlier: Knex.MigrationSource<string> = {
  getMigrations: async () => BEFORE,
  getMigrationName: (name) => name,
  getMigration: async (name) => import(path.join(MIGRATIONS, `${name}.ts`)),
};

/** Partitions of data_objects and whether each has an index attached to the parent trigram index. */
async function coverage(db: Db): Promise<{ parentValid: boolean; partitions: number; covered: number }> {
  const parent = (
    await db.raw('SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass(?)', [ATTRIBUTES_TRGM_INDEX])
  ).rows[0];
  const rows = (
    await db.raw(
      `SELECT p.inhrelid::regclass::text AS partition,
              EXISTS (SELECT 1 FROM pg_inherits h JOIN pg_index i ON i.indexrelid = h.inhrelid
                       WHERE h.inhparent = to_regclass(?) AND i.indrelid = p.inhrelid AND i.indisvalid) AS covered
         FROM pg_inherits p WHERE p.inhparent = 'data_objects'::regclass`,
      [ATTRIBUTES_TRGM_INDEX],
    )
  ).rows as Array<{ covered: boolean }>;
  return {
    parentValid: parent?.valid === true,
    partitions: rows.length,
    covered: rows.filter((r) => r.covered).length,
  };
}

interface PgConnection {
  query(sql: string, values?: unknown[]): Promise<{ rows: Array<Record<string, string>> }>;
}

/**
 * The plan of the data-subject finder's query. On tables this small a sequential scan (or a whole
 * btree read in order) is cheaper than any index, so both are priced out: what is left is whether the
 * trigram index can answer the query's LIKE at all, which is what the test is about.
 */
async function planOf(db: Db, identifier: string): Promise<string> {
  const fold = await unicodeLowerSql(db);
  const { sql, bindings } = objectMatchQuery(db, fold, identifier).toSQL().toNative();
  // Native placeholders ($1) on a connection of its own: the jsonpath's `?` is not a binding there.
  const client = db.client as {
    acquireConnection(): Promise<PgConnection>;
    releaseConnection(c: PgConnection): Promise<void>;
  };
  const conn = await client.acquireConnection();
  try {
    await conn.query('SET enable_seqscan = off; SET enable_indexscan = off');
    const { rows } = await conn.query(`EXPLAIN ${sql}`, bindings as unknown[]);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  } finally {
    await conn.query('RESET enable_seqscan; RESET enable_indexscan');
    await client.releaseConnection(conn);
  }
}

describe('data: trigram index of the attribute text (data-subject search)', function () {
  this.timeout(120_000);

  it('migration 0004 on a database with objects: every class partition gets its index, built concurrently and attached', async () => {
    const database = await createTestDatabase({ fresh: true });
    const db = database.db;
    await migrateAll(db, [{ owner: 'kernel', directory: KERNEL_MIGRATIONS_DIR }]);
    await db.migrate.latest({ migrationSource: earlier, tableName: 'knex_migrations_data' });
    const classIds = [randomUUID(), randomUUID()];
    for (const [i, id] of classIds.entries()) {
      await db('data_classes').insert({ id, name: `legacy${i}`, label: `Legacy ${i}`, fields: JSON.stringify([]) });
      await createClassPartition(db, id);
      await db.raw(
        `INSERT INTO data_objects (class_id, translation_group_id, key, attributes)
         SELECT ?::uuid, gen_random_uuid(), 'k' || g, jsonb_build_object('email', 'p' || g || '@example.test')
           FROM generate_series(1, 500) g`,
        [id],
      );
    }
    // A run interrupted half-way left an invalid index behind on the first partition.
    const first = `data_objects_c${classIds[0]!.replace(/-/g, '')}`;
    await db.raw(`UPDATE data_objects SET attributes = '{"email":"Ö@example.test"}' WHERE key = 'k1'`);
    await db.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await db.raw(`CREATE INDEX "${first}_attributes_trgm" ON "${first}" USING gin ((attributes::text) gin_trgm_ops)`);
    await db.raw(`UPDATE pg_index SET indisvalid = false WHERE indexrelid = to_regclass(?)`, [
      `${first}_attributes_trgm`,
    ]);
    expect((await coverage(db)).parentValid).to.equal(false);

    const t = await startTestKernel({ plugins: ['identity', 'data', 'data-subject'], database });
    try {
      expect(await coverage(t.db)).to.deep.equal({ parentValid: true, partitions: 2, covered: 2 });
      // A class made afterwards gets its partition's index on ATTACH.
      const admin = await t.admin();
      const made = await t.call('POST', '/data-classes', admin, {
        name: 'fresh',
        fields: [{ name: 'email', type: 'text' }],
      });
      expect(made.statusCode, made.body).to.equal(201);
      expect(await coverage(t.db)).to.deep.equal({ parentValid: true, partitions: 3, covered: 3 });

      const plan = await planOf(t.db, 'p7@example.test');
      expect(plan.match(/Bitmap Index Scan on data_objects_c[0-9a-f]{32}_\w+/g)).to.have.length(3);
      expect(plan).to.not.match(/Seq Scan on data_objects_c/);

      // The search finds the migrated rows through it, case folded by Unicode rules.
      const found = await t.call('POST', '/data-subject/search', admin, { identifier: 'ö@EXAMPLE.test' });
      expect(found.statusCode, found.body).to.equal(200);
      expect(found.json().counts.objects).to.equal(2);
    } finally {
      await t.close();
    }
  });

  it('a fresh installation: new classes are covered, the finder plans index scans on each partition, shared files are told apart', async () => {
    let t: TestKernel | undefined;
    try {
      t = await startTestKernel({ plugins: ['identity', 'data'] });
      const admin = await t.admin();
      for (const name of ['one', 'two']) {
        const res = await t.call('POST', '/data-classes', admin, { name, fields: [{ name: 'email', type: 'text' }] });
        expect(res.statusCode, res.body).to.equal(201);
      }
      expect(await coverage(t.db)).to.deep.equal({ parentValid: true, partitions: 2, covered: 2 });
      const plan = await planOf(t.db, 'anna@example.test');
      expect(plan.match(/Bitmap Index Scan on data_objects_c[0-9a-f]{32}_\w+/g)).to.have.length(2);

      // Files another object holds too: wildcards, quotes and backslashes in a reference are characters.
      const odd = 'Shared/50%_off "x"\\logo.png';
      const ids: string[] = [];
      for (const [className, photo] of [
        ['one', odd],
        ['two', odd.toLowerCase()],
        ['one', 'people/own.png'],
      ]) {
        const res = await t.call('POST', '/data-objects', admin, { className, attributes: { email: photo } });
        expect(res.statusCode, res.body).to.equal(201);
        ids.push(res.json().id);
      }
      const fold = await unicodeLowerSql(t.db);
      const shared = await objectsHolding(
        t.db,
        fold,
        [odd, 'Shared/50xyoff "x"\\logo.png', 'people/own.png', 'people/none.png', '50%_off'],
        [ids[0]!, ids[2]!],
      );
      // A reference inside a longer value counts too (a path in a rich text); wildcards stay characters.
      expect(shared.map((h) => h.ref).sort()).to.deep.equal(['50%_off', odd]);
      expect(shared[0]!.holder).to.match(/^object two\//);
    } finally {
      await t?.close();
    }
  });
});
