import { expect } from 'chai';
import { createKnex } from '../../kernel/database.ts';
import { definePlugin } from '../../kernel/index.ts';
import { registeredSchedules } from '../helpers/jobs.ts';
import { eventually, startTestKernel, type TestKernel } from '../helpers/kernel.ts';

const QUEUE = 'test-tick.every-minute';

/** A plugin with one schedule due every minute; each run says which process ran it. */
function tickPlugin(process: string, runs: string[]) {
  return definePlugin({
    id: 'test-tick',
    processes: ['core-api'],
    needs: [],
    schedules: [{ name: 'every-minute', cron: '* * * * *', run: async () => void runs.push(process) }],
  });
}

describe('kernel: schedules (the job engine cron)', function () {
  // One real tick: pg-boss's cron step at start, then its hand-over queue, polled every 5 s.
  this.timeout(60_000);

  it('a schedule that two processes on one database register runs once per tick', async () => {
    const runs: string[] = [];
    const env = { JOBS_POLL_MS: '100' };
    let a: TestKernel | undefined;
    let b: TestKernel | undefined;
    try {
      a = await startTestKernel({ plugins: [], extraPlugins: [tickPlugin('a', runs)], jobs: true, env });
      const url = (a.db.client.config.connection as { connectionString: string }).connectionString;
      const db = createKnex(url, 5);
      b = await startTestKernel({
        plugins: [],
        extraPlugins: [tickPlugin('b', runs)],
        jobs: true,
        env,
        database: { db, url, close: () => db.destroy() },
      });
      // One row, whichever process wrote it last: the schedule is the cluster's, not a process's.
      expect((await registeredSchedules(a)).get(QUEUE)).to.deep.equal({ cron: '* * * * *', timezone: 'UTC' });
      await eventually(() => runs.length > 0, { timeoutMs: 20_000, what: 'the tick run' });
      await Promise.all([a, b].map((t) => t.kernel.resolve('jobs').settled(QUEUE)));
      // Both processes' cron steps ran at their start; the tick made one job, run by one of them.
      expect(runs).to.have.length(1);
      expect(runs[0]).to.be.oneOf(['a', 'b']);
      const jobs = await a.db('pgboss.job').where({ name: QUEUE }).select('state');
      expect(jobs).to.deep.equal([{ state: 'completed' }]);
    } finally {
      await b?.close();
      await a?.close();
    }
  });

  it('runJob runs a schedule now, outside its ticks (as the tests of each plugin do)', async () => {
    const runs: string[] = [];
    const t = await startTestKernel({ plugins: [], extraPlugins: [tickPlugin('a', runs)] });
    try {
      await t.runJob('test-tick', 'every-minute');
      expect(runs).to.deep.equal(['a']);
      // Timers off (the harness's default): nothing registered, nothing ran on its own.
      expect((await registeredSchedules(t)).has(QUEUE)).to.equal(false);
    } finally {
      await t.close();
    }
  });
});
