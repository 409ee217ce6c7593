import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { createKnex } from '../../../kernel/database.ts';
import { PROJECT_ROOT } from '../../../kernel/loader.ts';
import { eventually, startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';
import { INDEX_BUILDS_QUEUE } from '../services/index-builds.ts';
import { existingFieldIndexes } from '../store/field-index-store.ts';
import { startDataKernel, type DataKernel } from './data-kernel.ts';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'index-build-process.ts');

const field = (name: string, type = 'number') => ({ name, type });

/** Objects enough that a field change is left to a build (the class has objects). */
const seedObjects = (db: Knex, classId: string, n = 5_000) =>
  db.raw(
    `insert into data_objects (class_id, translation_group_id, locale, published, attributes)
     select ?, gen_random_uuid(), 'en', true, jsonb_build_object('title', 't' || n, 'rank', n % 100) from generate_series(1, ?) n`,
    [classId, n],
  );

/**
 * A transaction holding an older snapshot (a long report, say): CREATE INDEX CONCURRENTLY waits for it
 * to end, so a build stays under way until `end()`.
 */
async function holdSnapshot(db: Knex) {
  const trx = await db.transaction({ isolationLevel: 'repeatable read' });
  await trx.raw('select 1 from data_classes limit 1');
  return { end: () => trx.commit() };
}

/** The build's statement as the database runs it (the backend, whoever its client was). */
const runningBuild = async (db: Knex): Promise<number | undefined> =>
  (
    await db.raw(
      `select pid from pg_stat_activity where datname = current_database() and query ilike 'create index concurrently%'`,
    )
  ).rows[0]?.pid;

/** Field indexes (and statistics) a class with `fields` has once built (an empty class gets them at once). */
async function indexesWanted(k: DataKernel, fields: unknown[]): Promise<number> {
  const twin = await k.createClass(fields, 'twin');
  return (await existingFieldIndexes(k.t.db, twin.id)).length;
}

/** The class's field indexes (and statistics) that are there and valid. */
const validIndexes = async (db: Knex, classId: string): Promise<number> =>
  (await existingFieldIndexes(db, classId)).filter((x) => x.valid).length;

describe('data: field index builds (queue data.index-builds)', function () {
  this.timeout(120_000);
  let k: DataKernel;
  before(async () => {
    k = await startDataKernel();
  });
  after(() => k.t.close());

  const jobs = () => k.t.kernel.resolve('jobs');
  /** Builds of the class the engine ran or holds, whatever their state. */
  const buildsOf = async (classId: string): Promise<number> =>
    Number(
      (await k.t.db('pgboss.job').where({ name: INDEX_BUILDS_QUEUE, singleton_key: classId }).count({ n: '*' }))[0].n,
    );

  it('changes made while a build waits are built once, with the fields the class has by then', async () => {
    const cls = await k.createClass([{ name: 'title', type: 'text' }], 'twice');
    await seedObjects(k.t.db, cls.id);
    const snapshot = await holdSnapshot(k.t.db);
    const patch = async (fields: unknown[]) => {
      const res = await k.call('PATCH', `/data-classes/${cls.id}`, k.admin, { fields });
      expect(res.statusCode, res.body).to.equal(200);
    };
    const title = { name: 'title', type: 'text' };
    try {
      await patch([title, field('rank')]);
      // The first build is under way (it reported how far it is, then waits for the old snapshot).
      await eventually(() =>
        jobs()
          .progress(INDEX_BUILDS_QUEUE, cls.id)
          .then((p) => p !== undefined),
      );
      // Two more changes while it runs: the first queues one more build, the second joins it.
      await patch([title, field('rank'), field('size')]);
      await patch([title, field('rank'), field('size'), field('weight')]);
      expect(await buildsOf(cls.id)).to.equal(2);
    } finally {
      await snapshot.end();
    }
    await jobs().settled(INDEX_BUILDS_QUEUE);
    expect(await jobs().unfinished(INDEX_BUILDS_QUEUE, cls.id)).to.equal(false);
    expect(await buildsOf(cls.id)).to.equal(2);
    const wanted = await indexesWanted(k, [title, field('rank'), field('size'), field('weight')]);
    expect(await validIndexes(k.t.db, cls.id)).to.equal(wanted);
    const progress = await jobs().progress(INDEX_BUILDS_QUEUE, cls.id);
    expect(progress).to.include({ done: wanted, total: wanted });
  });

  it('a build whose process died is taken back after its timeout and built by another process', async () => {
    const title = { name: 'title', type: 'text' };
    const cls = await k.createClass([title], 'crash');
    await seedObjects(k.t.db, cls.id);
    const wanted = await indexesWanted(k, [title, field('rank')]);
    const url = (k.t.db.client.config.connection as { connectionString: string }).connectionString;
    // This kernel stops; the database stays (it is dropped at the end of the file).
    await k.t.close();
    const db = createKnex(url, 5);
    let other: TestKernel | undefined;
    try {
      const snapshot = await holdSnapshot(db);
      const child = spawn(
        process.execPath,
        ['--import', 'tsx/esm', CHILD, url, cls.id, JSON.stringify([title, field('rank')])],
        { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      try {
        await once(child.stdout!, 'data');
        const pid = await eventually(() => runningBuild(db).then((p) => p ?? false), { timeoutMs: 15_000 });
        child.kill('SIGKILL');
        await once(child, 'exit');
        // The build's backend goes with its process (a dead host takes its connections along).
        await db.raw('select pg_terminate_backend(?)', [pid]);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
        await snapshot.end();
      }
      expect(await validIndexes(db, cls.id)).to.be.below(wanted);
      // The try's timeout (plus grace) has passed, as far as the engine can tell.
      await db.raw(
        `update pgboss.job set started_on = started_on - interval '3 hours' where name = ? and state = 'active'`,
        [INDEX_BUILDS_QUEUE],
      );
      other = await startTestKernel({
        plugins: ['data'],
        database: { db, url, close: async () => undefined },
        jobs: true,
        env: { JOBS_SUPERVISE_SECONDS: '1', JOBS_POLL_MS: '100' },
      });
      await eventually(() => validIndexes(db, cls.id).then((n) => n === wanted), {
        timeoutMs: 30_000,
        what: 'the build taken back and finished',
      });
      await other.kernel.resolve('jobs').settled(INDEX_BUILDS_QUEUE);
      // The same job ran again (no second job): what died was a try, not the build.
      expect(
        await db('pgboss.job')
          .where({ name: INDEX_BUILDS_QUEUE, singleton_key: cls.id })
          .select('state', 'retry_count'),
      ).to.deep.equal([{ state: 'completed', retry_count: 1 }]);
    } finally {
      await other?.close();
      await db.destroy();
    }
  });
});
