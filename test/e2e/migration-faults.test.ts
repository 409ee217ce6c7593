import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import mysql from 'mysql2/promise';
import { PROJECT_ROOT, discoverPlugins } from '../../kernel/loader.ts';
import { eventually, startTestKernel, type TestKernel, type TestUser } from '../helpers/kernel.ts';
import { PIMCORE_FIXTURES, type RunningMariaDb, startMariaDb } from '../helpers/mariadb.ts';
import { holdImportJob } from '../helpers/import-job-lock.ts';
import { freePort } from '../helpers/ports.ts';

const CMS = path.join(PROJECT_ROOT, 'bin', 'cms.js');
const PLUGINS = ['gateway', 'data', 'migration'];
const KEY = 'd4'.repeat(32);
const OBJECTS = 6000;

/**
 * Faults of a background object import run by a real core-api process (`cms start`): the process
 * killed with SIGKILL mid-import and started again (the job goes on from its last committed batch and
 * ends with every object once), and the source database dropping the import's connection (the job
 * fails with the reason, and a resume finishes it).
 */
describe('migration imports under faults: kill -9 mid-import, a source that goes away', function () {
  this.timeout(240_000);
  let t: TestKernel;
  let db: RunningMariaDb;
  let admin: TestUser;
  let sourceId: string;
  const children: ChildProcess[] = [];

  const job = async (id: string) => (await t.call('GET', `/migration-sources/import-jobs/${id}`, admin)).json();
  const objectCount = async () => {
    const cls = await t.db('data_classes').where({ name: 'Category' }).first('id');
    const row = await t.db('data_objects').where({ class_id: cls.id }).count({ n: '*' }).first();
    return Number(row?.n);
  };
  const holdJob = (jobId: string) => holdImportJob(t.db, jobId);
  /** The Category partition's own field indexes: all of them, and those valid (built). */
  const fieldIndexes = async () => {
    const cls = await t.db('data_classes').where({ name: 'Category' }).first('id');
    const { rows } = await t.db.raw(
      `select count(*)::int as all, count(*) filter (where i.indisvalid)::int as valid
         from pg_index i join pg_class c on c.oid = i.indexrelid
        where i.indrelid = to_regclass(?) and (c.relname like 'data\\_objects\\_f\\_%' or c.relname like 'data\\_objects\\_p\\_%')`,
      [`data_objects_c${cls.id.replace(/-/g, '')}`],
    );
    return rows[0] as { all: number; valid: number };
  };
  /** Index builds of the Category class stored and not yet due (a bulk load's safety net). */
  const laterBuilds = async () => {
    const cls = await t.db('data_classes').where({ name: 'Category' }).first('id');
    const { rows } = await t.db.raw(
      `select count(*)::int as n from pgboss.job where name = 'data.index-builds' and singleton_key = ? and state = 'created' and start_after > now()`,
      [cls.id],
    );
    return rows[0].n as number;
  };
  const exited = (child: ChildProcess) =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => child.once('exit', () => resolve()));

  async function startCore(): Promise<ChildProcess> {
    const url = (t.db.client as { connectionSettings: { connectionString: string } }).connectionSettings
      .connectionString;
    const disabled = (await discoverPlugins())
      .map((p) => p.id)
      .filter((id) => !PLUGINS.includes(id))
      .join(',');
    const port = await freePort();
    const child = spawn(process.execPath, [CMS, 'start', '--service', 'core-api'], {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        DATABASE_URL: url,
        CMS_DATA_DIR: t.dataDir,
        CMS_DISABLED_PLUGINS: disabled,
        INTEGRATION_SECRETS_ENCRYPTION_KEY: KEY,
        MIGRATION_IMPORT_BATCH_OBJECTS: '100',
        // The first import bulk loads the class (6,000 objects into an empty class): no field indexes
        // until its objects are in.
        MIGRATION_IMPORT_BULK_MIN_OBJECTS: '1000',
        MIGRATION_IMPORT_TRY_SECONDS: '2',
        JOBS_SUPERVISE_SECONDS: '1',
        PORT: String(port),
        HOST: '127.0.0.1',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stderr!.on('data', (c) => (output += c));
    await eventually(
      async () => (await fetch(`http://127.0.0.1:${port}/migration-sources`).catch(() => undefined))?.status === 401,
      { timeoutMs: 90_000, intervalMs: 200, what: `core-api to listen (${output})` },
    );
    return child;
  }

  before(async () => {
    // This kernel holds the database and answers the API; its job runner is off, so only the child
    // process works the import queue.
    [db, t] = await Promise.all([
      startMariaDb(),
      startTestKernel({
        plugins: PLUGINS,
        ownDataDir: true,
        env: {
          INTEGRATION_SECRETS_ENCRYPTION_KEY: KEY,
          MIGRATION_IMPORT_BATCH_OBJECTS: '100',
          MIGRATION_IMPORT_BULK_MIN_OBJECTS: '1000',
          // Only the child works imports: a kill of it cuts the import off.
          MIGRATION_IMPORT_WORKER_ENABLED: '0',
        },
      }),
    ]);
    await db.loadPimcoreFixture();
    // Many categories (Pimcore ids 1000 and up), enough for dozens of batches.
    await db.sql(`USE ${db.database};
      INSERT INTO objects (id, parentId, type, \`key\`, path, \`index\`, published, creationDate, modificationDate, classId, className)
        SELECT 1000 + seq, 2, 'object', CONCAT('cat-', seq), '/shop/', seq, 1, 1718000000, 1718000000, 'CAT', 'Category'
          FROM seq_1_to_${OBJECTS};
      INSERT INTO object_store_CAT (oo_id, name) SELECT 1000 + seq, CONCAT('Category ', seq) FROM seq_1_to_${OBJECTS};`);
    admin = await t.admin();
    const res = await t.call('POST', '/migration-sources', admin, {
      name: 'faults',
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
  });
  after(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await t?.close();
    await db?.stop();
  });

  it('core-api killed with SIGKILL mid-import and started again: the job finishes, no object twice, indexes built', async () => {
    const indexed = await fieldIndexes();
    expect(indexed.all).to.be.above(0);
    expect(indexed.valid).to.equal(indexed.all);
    const start = await t.call('POST', `/migration-sources/${sourceId}/import-objects`, admin, {
      classes: ['Category'],
      background: true,
    });
    expect(start.statusCode, start.body).to.equal(202);
    const { jobId } = start.json();
    const held = await holdJob(jobId);
    let core = await startCore();
    await held.stepUntil(500);
    core.kill('SIGKILL');
    await exited(core);
    await held.release();
    const cut = await job(jobId);
    expect(cut.state).to.equal('running');
    expect(cut.progress.done).to.be.below(cut.progress.total);
    expect(cut.progress.total).to.equal(OBJECTS + 1);
    // What the dead process committed is there, batch by batch: as many objects as the checkpoint says.
    expect(await objectCount()).to.equal(cut.progress.done);
    // Cut off in the middle of a bulk load: the class has no field indexes, and a build of them waits
    // (due whether or not the import comes back); reads of the class are right meanwhile.
    expect(await fieldIndexes()).to.deep.equal({ all: 0, valid: 0 });
    expect(await laterBuilds()).to.equal(1);
    const found = await t.call('POST', '/data-objects/query', admin, {
      className: 'Category',
      filters: [{ field: 'name', op: 'eq', value: 'Category 7' }],
    });
    expect(found.statusCode, found.body).to.equal(200);
    expect(found.json().objects.map((o: { key: string }) => o.key)).to.deep.equal(['cat-7']);

    core = await startCore();
    await eventually(async () => (await job(jobId)).state === 'succeeded', {
      timeoutMs: 120_000,
      intervalMs: 200,
      what: 'the import to finish after the restart',
    });
    const done = await job(jobId);
    expect(done.progress).to.deep.equal({ done: OBJECTS + 1, total: OBJECTS + 1 });
    expect(done.counts).to.deep.equal({ created: OBJECTS + 1, updated: 0, skipped: 0, failed: 0 });
    expect(await objectCount()).to.equal(OBJECTS + 1);
    const keys = await t.db('data_objects').countDistinct({ n: 'key' }).first();
    expect(Number(keys?.n)).to.equal(OBJECTS + 1);
    const mapped = await t
      .db('migration_id_map')
      .where({ source_id: sourceId, kind: 'object' })
      .count({ n: '*' })
      .first();
    expect(Number(mapped?.n)).to.equal(OBJECTS + 1);
    // The resumed import built them once its objects were in, and left no build waiting for later.
    expect(await fieldIndexes()).to.deep.equal(indexed);
    expect(await laterBuilds()).to.equal(0);
    core.kill('SIGKILL');
    await exited(core);
  });

  it('the source database drops the connection mid-import: the job fails with the reason, and resume finishes it', async () => {
    // A second run of the same source: every object is matched on its Pimcore id (updated, never created).
    await db.sql(`USE ${db.database}; UPDATE object_store_CAT SET name = CONCAT(name, ' (2)');`);
    const start = await t.call('POST', `/migration-sources/${sourceId}/import-objects`, admin, {
      classes: ['Category'],
      background: true,
    });
    expect(start.statusCode, start.body).to.equal(202);
    const { jobId } = start.json();
    // Held part way: the import stands still while its source connection is cut.
    const held = await holdJob(jobId);
    const core = await startCore();
    await held.stepUntil(300);
    // The class holds as many objects as the source brings: it is not bulk loaded, its indexes stay.
    expect((await fieldIndexes()).valid).to.be.above(0);
    expect(await laterBuilds()).to.equal(0);
    // The source's server ends the import's connection (as a restart or a network cut would).
    const probe = await mysql.createConnection({ host: db.host, port: db.port, user: db.user, password: db.password });
    // And stays away until the test brings it back: a try of the job that reconnected would finish the
    // import instead of failing it (the import's user can no longer sign in; open sessions stay).
    await db.sql(`ALTER USER '${db.user}'@'%' ACCOUNT LOCK;`);
    const [threads] = await probe.query<mysql.RowDataPacket[]>('SHOW PROCESSLIST');
    const [me] = await probe.query<mysql.RowDataPacket[]>('SELECT CONNECTION_ID() AS id');
    for (const th of threads)
      if (th.Id !== me[0].id) await probe.query(`KILL CONNECTION ${Number(th.Id)}`).catch(() => undefined);
    await probe.end();
    await held.release();
    let seen: unknown;
    await eventually(
      async () => {
        seen = await job(jobId);
        return (seen as { state: string }).state === 'failed';
      },
      { timeoutMs: 60_000, what: 'the job to fail' },
    ).catch((err: Error) => {
      throw new Error(`${err.message} (the job last: ${JSON.stringify(seen)})`);
    });
    await db.sql(`ALTER USER '${db.user}'@'%' ACCOUNT UNLOCK;`);
    const failed = await job(jobId);
    expect(failed.error).to.match(/source database/);
    expect(failed.progress.done).to.be.below(failed.progress.total);

    const resume = await t.call('POST', `/migration-sources/import-jobs/${jobId}/resume`, admin);
    expect(resume.statusCode, resume.body).to.equal(200);
    await eventually(async () => (await job(jobId)).state === 'succeeded', {
      timeoutMs: 120_000,
      intervalMs: 200,
      what: 'the resumed import to finish',
    });
    const done = await job(jobId);
    expect(done.counts).to.deep.equal({ created: 0, updated: OBJECTS + 1, skipped: 0, failed: 0 });
    expect(done.error).to.equal(null);
    expect(await objectCount()).to.equal(OBJECTS + 1);
    const renamed = await t.db('data_objects').whereRaw("attributes->>'name' like '% (2)'").count({ n: '*' }).first();
    expect(Number(renamed?.n)).to.equal(OBJECTS + 1);
    core.kill('SIGKILL');
    await exited(core);
  });
});
