import { expect } from 'chai';
import { definePlugin, type PluginManifest } from '../../kernel/plugin.ts';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';

const QUEUE = 'test-claims.work';
/** A plugin that only names a queue: its jobs are carried out by a worker outside the kernel. */
const claimsPlugin = definePlugin({
  id: 'test-claims',
  processes: ['core-api'],
  needs: ['jobs'],
  enqueues: [QUEUE],
}) as PluginManifest;

describe('kernel: jobs claimed for a worker outside the kernel (jobs.claim / extend / complete)', function () {
  this.timeout(60_000);
  let t: TestKernel;
  const jobs = () => t.kernel.resolve('jobs');
  const stateOf = async (id: string) =>
    (await t.db.raw('SELECT state FROM pgboss.job WHERE id = ?', [id])).rows[0]?.state as string | undefined;

  before(async () => {
    t = await startTestKernel({ plugins: [], extraPlugins: [claimsPlugin] });
  });
  after(() => t?.close());

  it('a claim takes the due jobs, each once; a job not due yet waits', async () => {
    const first = await jobs().enqueue(QUEUE, { n: 1 }, { key: 'one' });
    const second = await jobs().enqueue(QUEUE, { n: 2 });
    await jobs().enqueue(QUEUE, { n: 3 }, { runAt: new Date(t.clock.now().getTime() + 60_000) });
    const claimed = await jobs().claim<{ n: number }>(QUEUE, { leaseMs: 30_000, limit: 5 });
    expect(claimed.map((j) => [j.id, j.payload.n, j.key])).to.have.deep.members([
      [first, 1, 'one'],
      [second, 2, undefined],
    ]);
    expect(await jobs().claim(QUEUE, { leaseMs: 30_000 })).to.deep.equal([]);
    for (const job of claimed) expect(await jobs().complete(QUEUE, job.id)).to.equal(true);
    // Completed once: a second completion finds nothing running.
    expect(await jobs().complete(QUEUE, first!)).to.equal(false);
    await t.advanceClock(61_000);
    const [later] = await jobs().claim<{ n: number }>(QUEUE, { leaseMs: 30_000 });
    expect(later.payload.n).to.equal(3);
    expect(await jobs().complete(QUEUE, later.id)).to.equal(true);
  });

  it('a lease that runs out gives the job back to the next claim (same id); extend keeps it; complete ends it for good', async () => {
    const id = await jobs().enqueue(QUEUE, { n: 4 });
    const [job] = await jobs().claim(QUEUE, { leaseMs: 20_000 });
    expect(job.id).to.equal(id);
    await t.advanceClock(15_000);
    expect(await jobs().extend(QUEUE, job.id, 20_000)).to.equal(true);
    // 15 s + 15 s after the claim: past the first lease, inside the extended one.
    await t.advanceClock(15_000);
    expect(await jobs().claim(QUEUE, { leaseMs: 20_000 })).to.deep.equal([]);
    expect(await stateOf(job.id)).to.equal('active');
    await t.advanceClock(6_000);
    const [again] = await jobs().claim(QUEUE, { leaseMs: 20_000 });
    expect(again.id).to.equal(job.id);
    expect((await t.db.raw('SELECT retry_count FROM pgboss.job WHERE id = ?', [job.id])).rows[0].retry_count).to.equal(
      1,
    );
    expect(await jobs().complete(QUEUE, again.id)).to.equal(true);
    expect(await stateOf(job.id)).to.equal('completed');
    expect(await jobs().extend(QUEUE, job.id, 20_000)).to.equal(false);
  });

  it('with trx the claim and the completion commit or roll back with the caller’s write', async () => {
    const id = await jobs().enqueue(QUEUE, { n: 5 });
    await t.db
      .transaction(async (trx) => {
        const [job] = await jobs().claim(QUEUE, { leaseMs: 20_000, trx });
        expect(job.id).to.equal(id);
        throw new Error('the caller’s write failed');
      })
      .catch(() => undefined);
    expect(await stateOf(id!)).to.equal('created');
    const [job] = await jobs().claim(QUEUE, { leaseMs: 20_000 });
    await t.db
      .transaction(async (trx) => {
        expect(await jobs().complete(QUEUE, job.id, { trx })).to.equal(true);
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    expect(await stateOf(job.id)).to.equal('active');
    await t.db.transaction(async (trx) => {
      expect(await jobs().complete(QUEUE, job.id, { trx })).to.equal(true);
    });
    expect(await stateOf(job.id)).to.equal('completed');
  });
});
