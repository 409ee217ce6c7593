import { performance } from 'node:perf_hooks';
import { HttpError } from './errors.ts';

/**
 * Runs at most `concurrency` tasks at once and lets at most `maxQueued` more wait, in arrival order.
 * A task arriving when the queue is full is refused at once with 503 `OVERLOADED` and a `Retry-After`
 * of about the time the queue needs to drain, so overload turns into a quick answer instead of an
 * ever longer wait.
 */
export class WorkQueue {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  /** Moving average of how long a task runs, for Retry-After. */
  private averageMs = 0;

  constructor(readonly opts: { concurrency: number; maxQueued: number; busyMessage: string }) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running < this.opts.concurrency) {
      this.running += 1;
    } else {
      if (this.waiting.length >= this.opts.maxQueued) {
        throw new HttpError(503, 'OVERLOADED', this.opts.busyMessage, undefined, {
          'retry-after': String(this.drainSeconds()),
        });
      }
      // The finishing task hands its slot over (see release), so `running` is already counted.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    const started = performance.now();
    try {
      return await task();
    } finally {
      const took = performance.now() - started;
      this.averageMs = this.averageMs === 0 ? took : this.averageMs * 0.8 + took * 0.2;
      this.release();
    }
  }

  /** Tasks running and waiting now. */
  load(): { running: number; queued: number; concurrency: number; maxQueued: number } {
    return {
      running: this.running,
      queued: this.waiting.length,
      concurrency: this.opts.concurrency,
      maxQueued: this.opts.maxQueued,
    };
  }

  /** Seconds until the tasks waiting now have run (at least 1). */
  private drainSeconds(): number {
    return Math.max(1, Math.ceil((this.waiting.length * this.averageMs) / this.opts.concurrency / 1000));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running -= 1;
  }
}

// libuv's thread pool is one per process (default 4 threads, at most 1024), so the bound on what
// runs there is one per process too, whatever the number of kernels in it.
const THREAD_POOL_SIZE = Math.min(1024, Math.max(1, Number(process.env.UV_THREADPOOL_SIZE) || 4));
const HASH_CONCURRENCY = Math.max(1, THREAD_POOL_SIZE - 1);

/**
 * The password hashes (scrypt) of this process: at most one less than the pool's threads run at once,
 * so file and DNS work always find a thread however many sign-ins arrive. At most 16 hashes per
 * running one wait (about 1 s of work at 60 ms a hash; several seconds on a small machine); beyond
 * that the caller gets 503 at once.
 */
export const passwordHashQueue = new WorkQueue({
  concurrency: HASH_CONCURRENCY,
  maxQueued: 16 * HASH_CONCURRENCY,
  busyMessage: 'Too many sign-ins at once; try again in a moment',
});
