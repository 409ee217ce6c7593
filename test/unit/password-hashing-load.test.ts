import { expect } from 'chai';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { performance } from 'node:perf_hooks';
import { isHttpError } from '../../kernel/errors.ts';
import { hashPassword, verifyPassword } from '../../kernel/passwords.ts';
import { passwordHashQueue, WorkQueue } from '../../kernel/work-queue.ts';

type ScryptCallback = (err: Error | null, key: Buffer) => void;

/**
 * Counts the scrypt calls running on libuv's thread pool at once, by wrapping node:crypto's own
 * `scrypt` (both the CommonJS object and the ES module bindings).
 */
function watchScrypt() {
  const original = crypto.scrypt;
  const seen = { running: 0, peak: 0, calls: 0 };
  const wrapped = (...args: unknown[]) => {
    const done = args.pop() as ScryptCallback;
    seen.running += 1;
    seen.calls += 1;
    seen.peak = Math.max(seen.peak, seen.running);
    (original as (...a: unknown[]) => void)(...args, (err: Error | null, key: Buffer) => {
      seen.running -= 1;
      done(err, key);
    });
  };
  crypto.scrypt = wrapped as typeof crypto.scrypt;
  syncBuiltinESMExports();
  return {
    seen,
    restore() {
      crypto.scrypt = original;
      syncBuiltinESMExports();
    },
  };
}

describe('password hashing under load', () => {
  const poolSize = Number(process.env.UV_THREADPOOL_SIZE) || 4;

  it('never runs more hashes at once than the thread pool has threads minus one; the rest wait their turn', async () => {
    const stored = await hashPassword('the right one');
    const watch = watchScrypt();
    try {
      const results = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          i % 3 === 0
            ? hashPassword(`new-${i}`)
            : verifyPassword(i % 3 === 1 ? 'the right one' : 'a wrong one', i % 2 ? stored : null),
        ),
      );
      expect(watch.seen.calls).to.equal(16);
      expect(watch.seen.peak).to.be.at.most(Math.max(1, poolSize - 1));
      expect(watch.seen.peak).to.be.at.least(1);
      // Every call still did its work.
      expect(results.filter((r) => typeof r === 'string')).to.have.length(6);
      expect(results.filter((r) => r === true)).to.have.length(3);
    } finally {
      watch.restore();
    }
  });

  it('a hash arriving when the queue is full is refused at once with 503 OVERLOADED and Retry-After', async () => {
    const { concurrency, maxQueued } = passwordHashQueue.load();
    expect(concurrency).to.equal(Math.max(1, poolSize - 1));
    expect(maxQueued).to.equal(16 * concurrency);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const holders = Array.from({ length: concurrency + maxQueued }, () => passwordHashQueue.run(() => gate));
    expect(passwordHashQueue.load()).to.include({ running: concurrency, queued: maxQueued });
    const refused = await hashPassword('one too many').then(
      () => null,
      (err: unknown) => err,
    );
    expect(isHttpError(refused), String(refused)).to.equal(true);
    expect(refused).to.include({ statusCode: 503, code: 'OVERLOADED' });
    // About the time the queue needs to drain: tasks of the earlier hashes' length, `concurrency` at a time.
    expect(Number((refused as { headers: Record<string, string> }).headers['retry-after'])).to.be.at.least(1);
    expect(await verifyPassword('x', null).catch((err: { statusCode: number }) => err.statusCode)).to.equal(503);
    open();
    await Promise.all(holders);
    expect(passwordHashQueue.load()).to.include({ running: 0, queued: 0 });
    expect(await hashPassword('room again')).to.match(/^scrypt\$/);
  });
});

describe('WorkQueue', () => {
  it('runs at most `concurrency` tasks, starts waiting ones in arrival order as slots free up, and refuses beyond `maxQueued`', async () => {
    const queue = new WorkQueue({ concurrency: 2, maxQueued: 2, busyMessage: 'busy' });
    const started: number[] = [];
    const finish: Array<() => void> = [];
    const task = (i: number) => () => {
      started.push(i);
      return new Promise<number>((resolve) => finish.push(() => resolve(i)));
    };
    const runs = [0, 1, 2, 3].map((i) => queue.run(task(i)));
    const overflow = await queue
      .run(task(4))
      .catch((err: { statusCode: number; headers: Record<string, string> }) => err);
    expect(overflow).to.deep.include({
      statusCode: 503,
      code: 'OVERLOADED',
      message: 'busy',
      headers: { 'retry-after': '1' },
    });
    await Promise.resolve();
    expect(started).to.deep.equal([0, 1]);
    expect(queue.load()).to.include({ running: 2, queued: 2 });
    finish[1]();
    await runs[1];
    await new Promise((r) => setImmediate(r));
    expect(started).to.deep.equal([0, 1, 2]);
    finish[0]();
    await new Promise((r) => setImmediate(r));
    expect(started).to.deep.equal([0, 1, 2, 3]);
    expect(queue.load()).to.include({ running: 2, queued: 0 });
    finish[2]();
    finish[3]();
    expect(await Promise.all(runs)).to.deep.equal([0, 1, 2, 3]);
    expect(queue.load()).to.include({ running: 0, queued: 0 });
  });

  it('frees the slot of a task that fails', async () => {
    const queue = new WorkQueue({ concurrency: 1, maxQueued: 0, busyMessage: 'busy' });
    await queue.run(() => Promise.reject(new Error('boom'))).catch(() => undefined);
    expect(await queue.run(async () => 'next')).to.equal('next');
    expect(queue.load()).to.include({ running: 0, queued: 0 });
  });

  it('asks to retry after about the time the waiting tasks need', async () => {
    const queue = new WorkQueue({ concurrency: 2, maxQueued: 4, busyMessage: 'busy' });
    // Teach it that a task takes about 1.5 s (no real waiting: the clock is read around the task).
    const realNow = performance.now.bind(performance);
    let fake = 0;
    performance.now = () => fake;
    try {
      await queue.run(async () => {
        fake += 1500;
      });
    } finally {
      performance.now = realNow;
    }
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const held = Array.from({ length: 6 }, () => queue.run(() => gate));
    const refused = await queue.run(async () => undefined).catch((err: { headers: Record<string, string> }) => err);
    // 4 waiting tasks of ~1.5 s, 2 at a time: about 3 s.
    expect(refused).to.have.nested.property('headers.retry-after', '3');
    open();
    await Promise.all(held);
  });
});
