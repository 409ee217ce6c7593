import { expect } from 'chai';
import { definePlugin } from '../../kernel/index.ts';
import { registeredSchedules } from '../helpers/jobs.ts';
import { startTestKernel } from '../helpers/kernel.ts';

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

// Once per tick across processes: test/kernel/jobs.test.ts ("a schedule runs once per tick ...").
describe('kernel: schedules run by hand', () => {
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
