import path from 'node:path';
import { expect } from 'chai';
import { eventually, startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { holdImportJob } from '../../../test/helpers/import-job-lock.ts';
import { PIMCORE_FIXTURES, type RunningMariaDb, startMariaDb } from '../../../test/helpers/mariadb.ts';

const KEY = { INTEGRATION_SECRETS_ENCRYPTION_KEY: 'b7'.repeat(32) };
const OBJECTS = 400;

interface PgConnection {
  query(sql: string, values?: unknown[]): Promise<{ rows: Array<Record<string, string>> }>;
}

/**
 * A large import into an empty class is a bulk load (MIGRATION_IMPORT_BULK_MIN_OBJECTS, here 100):
 * the class's field indexes are dropped while its objects go in and built once after them. Reads of
 * the class are right throughout; afterwards the indexes are there, valid, and answer the queries.
 */
describe('migration: a large import bulk loads its class (field indexes built after the objects)', function () {
  this.timeout(120_000);
  let t: TestKernel;
  let db: RunningMariaDb;
  let admin: TestUser;
  let sourceId: string;
  let partition: string;

  /** The Category partition's own field indexes: all of them, and those valid (built). */
  const fieldIndexes = async () => {
    const { rows } = await t.db.raw(
      `select count(*)::int as all, count(*) filter (where i.indisvalid)::int as valid
         from pg_index i join pg_class c on c.oid = i.indexrelid
        where i.indrelid = to_regclass(?) and (c.relname like 'data\\_objects\\_f\\_%' or c.relname like 'data\\_objects\\_p\\_%')`,
      [partition],
    );
    return rows[0] as { all: number; valid: number };
  };
  const byName = async (name: string) => {
    const res = await t.call('POST', '/data-objects/query', admin, {
      className: 'Category',
      filters: [{ field: 'name', op: 'eq', value: name }],
    });
    expect(res.statusCode, res.body).to.equal(200);
    return res.json().objects.map((o: { key: string }) => o.key);
  };
  /** The plan of a filter on `name` with sequential scans priced out: can an index answer it? */
  const planOfNameFilter = async () => {
    const client = t.db.client as {
      acquireConnection(): Promise<PgConnection>;
      releaseConnection(c: PgConnection): Promise<void>;
    };
    const conn = await client.acquireConnection();
    try {
      await conn.query('SET enable_seqscan = off');
      const { rows } = await conn.query(
        `EXPLAIN SELECT id FROM "${partition}" WHERE (attributes ->> 'name') COLLATE "C" = 'Category 7'`,
      );
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      await conn.query('RESET enable_seqscan');
      await client.releaseConnection(conn);
    }
  };

  before(async () => {
    [db, t] = await Promise.all([
      startMariaDb(),
      startTestKernel({
        plugins: ['gateway', 'data', 'migration'],
        jobs: true,
        env: { ...KEY, MIGRATION_IMPORT_BATCH_OBJECTS: '50', MIGRATION_IMPORT_BULK_MIN_OBJECTS: '100' },
      }),
    ]);
    await db.loadPimcoreFixture();
    await db.sql(`USE ${db.database};
      INSERT INTO objects (id, parentId, type, \`key\`, path, \`index\`, published, creationDate, modificationDate, classId, className)
        SELECT 1000 + seq, 2, 'object', CONCAT('cat-', seq), '/shop/', seq, 1, 1718000000, 1718000000, 'CAT', 'Category'
          FROM seq_1_to_${OBJECTS};
      INSERT INTO object_store_CAT (oo_id, name) SELECT 1000 + seq, CONCAT('Category ', seq) FROM seq_1_to_${OBJECTS};`);
    admin = await t.admin();
    const res = await t.call('POST', '/migration-sources', admin, {
      name: 'bulk',
      kind: 'pimcore',
      connection: { host: db.host, port: db.port, database: db.database, user: db.user, password: db.password },
      classPath: path.join(PIMCORE_FIXTURES, 'var', 'classes'),
    });
    expect(res.statusCode, res.body).to.equal(201);
    sourceId = res.json().id;
    const classes = await t.call('POST', `/migration-sources/${sourceId}/import-classes`, admin, {
      classes: ['Category'],
    });
    expect(classes.statusCode, classes.body).to.equal(200);
    const cls = await t.db('data_classes').where({ name: 'Category' }).first('id');
    partition = `data_objects_c${cls.id.replace(/-/g, '')}`;
  });
  after(async () => {
    await t?.close();
    await db?.stop();
  });

  it('drops the field indexes while the objects go in (reads stay right), builds them after, and they answer queries', async () => {
    const before = await fieldIndexes();
    expect(before.all).to.be.above(0);
    expect(before.valid).to.equal(before.all);

    const start = await t.call('POST', `/migration-sources/${sourceId}/import-objects`, admin, {
      classes: ['Category'],
      background: true,
    });
    expect(start.statusCode, start.body).to.equal(202);
    const { jobId } = start.json();
    const held = await holdImportJob(t.db, jobId);
    try {
      await held.stepUntil(150);
      // Half-way: no field index on the class, and the filter reads the partition instead, rightly.
      expect(await fieldIndexes()).to.deep.equal({ all: 0, valid: 0 });
      expect(await byName('Category 7')).to.deep.equal(['cat-7']);
      expect(await byName(`Category ${OBJECTS}`)).to.deep.equal([]);
    } finally {
      await held.release();
    }
    await eventually(
      async () => (await t.call('GET', `/migration-sources/import-jobs/${jobId}`, admin)).json().state === 'succeeded',
      { timeoutMs: 60_000, intervalMs: 100, what: 'the import to finish' },
    );
    const job = (await t.call('GET', `/migration-sources/import-jobs/${jobId}`, admin)).json();
    expect(job.counts).to.deep.equal({ created: OBJECTS + 1, updated: 0, skipped: 0, failed: 0 });

    // Once the objects are in, the same indexes are there and valid, and the planner can use them.
    expect(await fieldIndexes()).to.deep.equal(before);
    expect(await planOfNameFilter()).to.match(/Index Scan (using|on) data_objects_[fp]_[0-9a-f]{32}_[0-9a-f]{10}/);
    expect(await byName('Category 7')).to.deep.equal(['cat-7']);
    expect(await byName(`Category ${OBJECTS}`)).to.deep.equal([`cat-${OBJECTS}`]);
    // The partition was analyzed after the load: the planner knows its rows.
    const stats = await t.db.raw('select reltuples::int as n from pg_class where oid = to_regclass(?)', [partition]);
    expect(stats.rows[0].n).to.be.at.least(OBJECTS);
  });

  it('a second run into the class, which holds as many objects as the source brings, keeps its indexes', async () => {
    const start = await t.call('POST', `/migration-sources/${sourceId}/import-objects`, admin, {
      classes: ['Category'],
      background: true,
    });
    expect(start.statusCode, start.body).to.equal(202);
    const { jobId } = start.json();
    const held = await holdImportJob(t.db, jobId);
    try {
      await held.stepUntil(150);
      const now = await fieldIndexes();
      expect(now.all).to.be.above(0);
      expect(now.valid).to.equal(now.all);
    } finally {
      await held.release();
    }
    await eventually(
      async () => (await t.call('GET', `/migration-sources/import-jobs/${jobId}`, admin)).json().state === 'succeeded',
      { timeoutMs: 60_000, intervalMs: 100, what: 'the second import to finish' },
    );
  });
});
