import { expect } from 'chai';
import PgBoss from 'pg-boss';
import { connectDatabase } from '../../kernel/database.ts';
import { JobFailure, type JobRun, type Jobs } from '../../kernel/jobs.ts';
import { jobSql } from '../../kernel/job-store.ts';
import { definePlugin, type PluginManifest } from '../../kernel/plugin.ts';
import { eventually, startTestKernel, type TestKernel } from '../helpers/kernel.ts';

const QUEUE = 'job-probe.work';

type Mode = 'ok' | 'fail' | 'late-retry' | 'final' | 'block' | 'progress';
interface Payload {
  mode: Mode;
  tag: string;
}

/** What the probe plugin's handlers saw, shared by every kernel of one test. */
class Probe {
  tries: { tag: string; attempt: number; kernel: string }[] = [];
  failures: { tag: string; attempt: number; problem: string; nextRunAt: Date | undefined }[] = [];
  ticks: string[] = [];
  running = 0;
  mostAtOnce = 0;
  private releases: (() => void)[] = [];
  release(): void {
    for (const r of this.releases.splice(0)) r();
  }
  block(signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      this.releases.push(resolve);
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  }
}

function probePlugin(probe: Probe, kernelName: string): PluginManifest {
  return definePlugin({
    id: 'job-probe',
    processes: ['core-api'],
    needs: [],
    queues: [
      {
        name: QUEUE,
        concurrency: 2,
        timeoutMs: 1_000,
        retryWaitsMs: [60_000, 300_000],
        async run(job: JobRun<Payload>) {
          probe.tries.push({ tag: job.payload.tag, attempt: job.attempt, kernel: kernelName });
          probe.running += 1;
          probe.mostAtOnce = Math.max(probe.mostAtOnce, probe.running);
          try {
            switch (job.payload.mode) {
              case 'fail':
                throw new Error(`try ${job.attempt} failed`);
              case 'late-retry':
                throw new JobFailure('busy', { retryAfterMs: 600_000 });
              case 'final':
                throw new JobFailure('gone', { final: true });
              case 'block':
                return await probe.block(job.signal);
              case 'progress':
                await job.progress(3, 10);
                return;
              default:
                return;
            }
          } finally {
            probe.running -= 1;
          }
        },
        async onFailure(job: JobRun<Payload>, failure) {
          probe.failures.push({ tag: job.payload.tag, attempt: job.attempt, ...failure });
        },
      },
    ],
    schedules: [{ name: 'tick', cron: '* * * * *', run: async () => void probe.ticks.push(kernelName) }],
  });
}

async function startProbeKernel(probe: Probe, name: string, opts: Parameters<typeof startTestKernel>[0] = {}) {
  return startTestKernel({
    plugins: [],
    extraPlugins: [probePlugin(probe, name)],
    ...opts,
    env: { JOBS_POLL_MS: '100', ...opts.env },
  });
}

const triesOf = (probe: Probe, tag: string) => probe.tries.filter((t) => t.tag === tag).map((t) => t.attempt);

async function jobState(t: TestKernel, tag: string): Promise<string[]> {
  const { rows } = await t.db.raw(
    `SELECT state FROM pgboss.job WHERE name = ? AND data->'payload'->>'tag' = ? ORDER BY created_on`,
    [QUEUE, tag],
  );
  return rows.map((r: { state: string }) => r.state);
}

describe('kernel: the job engine (jobs port)', () => {
  let probe: Probe;
  let t: TestKernel;
  let jobs: Jobs;
  const settled = () => jobs.settled(QUEUE);

  beforeEach(async () => {
    probe = new Probe();
    t = await startProbeKernel(probe, 'a');
    jobs = t.kernel.resolve('jobs');
  });
  afterEach(async () => {
    probe.release();
    await t.close();
  });

  it('a job enqueued inside a transaction exists only if the transaction commits', async () => {
    await t.db
      .transaction(async (trx) => {
        await jobs.enqueue(QUEUE, { mode: 'ok', tag: 'rolled-back' }, { trx });
        throw new Error('the write failed');
      })
      .catch(() => undefined);
    await t.db.transaction(async (trx) => {
      await jobs.enqueue(QUEUE, { mode: 'ok', tag: 'committed' }, { trx });
    });
    await eventually(() => triesOf(probe, 'committed').length === 1, { what: 'the committed job to run' });
    await settled();
    expect(triesOf(probe, 'rolled-back')).to.deep.equal([]);
    expect(await jobState(t, 'rolled-back')).to.deep.equal([]);
    expect(triesOf(probe, 'committed')).to.deep.equal([1]);
    expect(await eventually(async () => (await jobState(t, 'committed'))[0] === 'completed')).to.equal(true);
  });

  it('a failing job is tried again after each wait of its retry schedule, then given up', async () => {
    await jobs.enqueue(QUEUE, { mode: 'fail', tag: 'f' });
    await eventually(() => probe.failures.length === 1);
    await settled();
    const before = t.clock.now().getTime();
    expect(probe.failures[0]).to.include({ attempt: 1, problem: 'try 1 failed' });
    expect(probe.failures[0].nextRunAt!.getTime() - before).to.be.within(59_000, 60_000);

    await t.advanceClock(58_000);
    await settled();
    expect(triesOf(probe, 'f'), 'not before the first wait').to.deep.equal([1]);

    await t.advanceClock(3_000);
    await eventually(() => probe.failures.length === 2);
    await settled(); // the next try is stored when the failed one's transaction commits
    expect(triesOf(probe, 'f')).to.deep.equal([1, 2]);
    expect(probe.failures[1].nextRunAt!.getTime() - t.clock.now().getTime()).to.be.within(299_000, 300_000);

    await t.advanceClock(301_000);
    await eventually(() => probe.failures.length === 3);
    expect(triesOf(probe, 'f')).to.deep.equal([1, 2, 3]);
    expect(probe.failures[2], 'the last try has no next one').to.include({ attempt: 3, nextRunAt: undefined });
    await t.advanceClock(24 * 3600_000);
    await settled();
    expect(triesOf(probe, 'f')).to.deep.equal([1, 2, 3]);
    expect(await jobState(t, 'f')).to.deep.equal(['completed', 'completed', 'failed']);
  });

  it("a failure's Retry-After waits longer than the schedule; a final failure gives up at once", async () => {
    await jobs.enqueue(QUEUE, { mode: 'late-retry', tag: 'late' });
    await jobs.enqueue(QUEUE, { mode: 'final', tag: 'final' });
    await eventually(() => probe.failures.length === 2);
    await settled();
    const late = probe.failures.find((f) => f.tag === 'late')!;
    expect(late.nextRunAt!.getTime() - t.clock.now().getTime()).to.be.within(599_000, 600_000);
    expect(probe.failures.find((f) => f.tag === 'final')).to.include({ attempt: 1, nextRunAt: undefined });
    await t.advanceClock(61_000);
    await settled();
    expect(triesOf(probe, 'late'), 'the schedule alone would have retried').to.deep.equal([1]);
    expect(await jobState(t, 'final')).to.deep.equal(['failed']);
  });

  it('a job key de-duplicates a waiting job; cancel takes it out', async () => {
    const runAt = new Date(t.clock.now().getTime() + 3600_000);
    const first = await jobs.enqueue(QUEUE, { mode: 'ok', tag: 'k1' }, { key: 'build:42', runAt });
    const second = await jobs.enqueue(QUEUE, { mode: 'ok', tag: 'k2' }, { key: 'build:42', runAt });
    expect(first).to.be.a('string');
    expect(second).to.equal(null);
    const depth = await jobs.depth();
    expect(depth.find((d) => d.queue === QUEUE)).to.deep.equal({ queue: QUEUE, waiting: 1, running: 0 });
    const metrics = await t.kernel.resolve('metrics').registry.metrics();
    expect(metrics).to.include(`jobs_queue_depth{queue="${QUEUE}",state="waiting"} 1`);

    expect(await jobs.cancel(QUEUE, 'build:42')).to.equal(1);
    await t.advanceClock(3600_000);
    await settled();
    expect(probe.tries).to.deep.equal([]);
    expect(await jobs.enqueue(QUEUE, { mode: 'ok', tag: 'k3' }, { key: 'build:42' })).to.be.a('string');
    await eventually(() => triesOf(probe, 'k3').length === 1);
  });

  it('a running job reports progress, read back by its key', async () => {
    await jobs.enqueue(QUEUE, { mode: 'progress', tag: 'p' }, { key: 'import:7' });
    await eventually(() => triesOf(probe, 'p').length === 1);
    await settled();
    expect(await jobs.progress(QUEUE, 'import:7')).to.include({ done: 3, total: 10 });
    expect(await jobs.progress(QUEUE, 'import:8')).to.equal(undefined);
  });

  it('runs at most `concurrency` jobs of a queue at once in a process', async () => {
    await jobs.enqueueMany(
      QUEUE,
      [1, 2, 3, 4, 5].map((n) => ({ mode: 'block' as const, tag: `c${n}` })),
    );
    await eventually(() => probe.running === 2);
    expect((await jobs.depth()).find((d) => d.queue === QUEUE)).to.include({ waiting: 3, running: 2 });
    await eventually(
      () => {
        probe.release();
        return probe.tries.length === 5 && probe.running === 0;
      },
      { what: 'every job to run' },
    );
    await settled();
    expect(probe.mostAtOnce).to.equal(2);
  });
});

describe('kernel: the job engine across processes', () => {
  const kernels: TestKernel[] = [];
  afterEach(async () => {
    for (const k of kernels.splice(0).reverse()) await k.close();
  });

  /** A second process on the same database. */
  async function sibling(of: TestKernel, probe: Probe, name: string, env: Record<string, string> = {}) {
    const url = (of.db.client as { connectionSettings: { connectionString: string } }).connectionSettings
      .connectionString;
    const k = await startProbeKernel(probe, name, { database: connectDatabase(url, { poolMax: 5 }), env });
    kernels.push(k);
    return k;
  }

  it('two processes on one database never run the same job', async () => {
    const probe = new Probe();
    const a = await startProbeKernel(probe, 'a');
    kernels.push(a);
    const b = await sibling(a, probe, 'b');
    const tags = Array.from({ length: 60 }, (_, i) => `j${i}`);
    await a.kernel.resolve('jobs').enqueueMany(
      QUEUE,
      tags.map((tag) => ({ mode: 'ok' as const, tag })),
    );
    await eventually(() => probe.tries.length >= 60, { timeoutMs: 10_000 });
    await Promise.all([a.kernel.resolve('jobs').settled(QUEUE), b.kernel.resolve('jobs').settled(QUEUE)]);
    expect(probe.tries.map((t) => t.tag).sort()).to.deep.equal([...tags].sort());
    expect(new Set(probe.tries.map((t) => t.kernel)).size, 'both processes worked').to.equal(2);
  });

  it('on shutdown a running job is handed back and another process runs it with the same try number', async () => {
    const probe = new Probe();
    const a = await startProbeKernel(probe, 'a', { env: { JOBS_STOP_GRACE_MS: '100' } });
    await a.kernel.resolve('jobs').enqueue(QUEUE, { mode: 'block', tag: 'h' });
    await eventually(() => probe.running === 1);
    await a.close();
    expect(probe.running, 'the try was aborted').to.equal(0);

    const b = await startProbeKernel(probe, 'b', {
      database: connectDatabase(
        (a.db.client as { connectionSettings: { connectionString: string } }).connectionSettings.connectionString,
        { poolMax: 5 },
      ),
    });
    kernels.push(b);
    await eventually(() => triesOf(probe, 'h').length === 2);
    expect(probe.tries.filter((t) => t.tag === 'h')).to.deep.equal([
      { tag: 'h', attempt: 1, kernel: 'a' },
      { tag: 'h', attempt: 1, kernel: 'b' },
    ]);
    probe.release();
  });

  it('a job whose process died mid-try runs again after its timeout', async () => {
    const probe = new Probe();
    const a = await startProbeKernel(probe, 'a', { jobs: true, env: { JOBS_SUPERVISE_SECONDS: '1' } });
    kernels.push(a);
    const jobs = a.kernel.resolve('jobs');
    // A process that took the job and died: claimed through pg-boss itself, never finished. Made due
    // and claimed in one transaction, so this kernel's own worker (polling every 100 ms) cannot take
    // it first: it sees the job only once it is already active.
    await jobs.enqueue(QUEUE, { mode: 'ok', tag: 'orphan' }, { runAt: new Date(a.clock.now().getTime() + 3600_000) });
    const taken = await a.db.transaction(async (trx) => {
      const dead = new PgBoss({ db: jobSql(trx), schema: 'pgboss', supervise: false, schedule: false });
      // (now() is the transaction's start: a second before it is due by the fetch's own now().)
      await trx.raw(
        `UPDATE pgboss.job SET start_after = now() - interval '1 second' WHERE name = ? AND state = 'created'`,
        [QUEUE],
      );
      return dead.fetch(QUEUE);
    });
    expect(taken).to.have.length(1);
    expect(await jobState(a, 'orphan')).to.deep.equal(['active']);

    await eventually(() => triesOf(probe, 'orphan').length === 1, {
      timeoutMs: 20_000,
      what: 'the orphan to run again',
    });
    expect(probe.tries.find((t) => t.tag === 'orphan')).to.include({ attempt: 1, kernel: 'a' });
  });

  it('a schedule runs once per tick however many processes run it', async () => {
    const probe = new Probe();
    const started = Date.now();
    const a = await startProbeKernel(probe, 'a', { jobs: true });
    kernels.push(a);
    await sibling(a, probe, 'b');
    const url = (a.db.client as { connectionSettings: { connectionString: string } }).connectionSettings
      .connectionString;
    const c = await startProbeKernel(probe, 'c', { jobs: true, database: connectDatabase(url, { poolMax: 5 }) });
    kernels.push(c);
    await eventually(() => probe.ticks.length >= 1, { timeoutMs: 15_000, what: 'the first tick' });
    for (const k of kernels) await k.kernel.resolve('jobs').settled('job-probe.tick');
    // Each process with timers looked at the tick at its start; one tick per minute the test spanned.
    const minutes = Math.floor(Date.now() / 60_000) - Math.floor(started / 60_000) + 1;
    expect(probe.ticks.length).to.be.within(1, minutes);
    const { rows } = await a.db.raw(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'job-probe.tick'`);
    expect(rows[0].n).to.equal(probe.ticks.length);
  });
});
