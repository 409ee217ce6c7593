import { randomUUID } from 'node:crypto';
import type PgBoss from 'pg-boss';
import type { Clock } from './clock.ts';
import type { Db } from './database.ts';
import { failJobFinally, jobSql, saveJobProgress } from './job-store.ts';
import { JobFailure, type JobRun, type RunnableQueue } from './jobs.ts';
import type { Logger } from './logger.ts';

/** What a stored job carries: the caller's payload and the try it is on. */
export interface StoredJob<P = unknown> {
  payload: P;
  attempt: number;
  /** The caller's job key (pg-boss's fetch does not return its own copy, `singleton_key`). */
  key?: string;
}

/** At most this much longer than a try's timeout pg-boss waits before it takes a running job back. */
const EXPIRY_GRACE_SECONDS = 30;

/**
 * How long after its start pg-boss takes a job of this queue back from a process that died: the try's
 * timeout plus as much again, at most 30 s more (a live runner has aborted the try by then).
 */
export function expirySecondsOf(def: Pick<RunnableQueue<unknown>, 'timeoutMs'>): number {
  const timeout = Math.ceil(def.timeoutMs / 1000);
  return Math.min(23 * 3600, timeout + Math.min(EXPIRY_GRACE_SECONDS, timeout));
}

interface RunnerDeps<Ctx> {
  boss: PgBoss;
  db: Db;
  clock: Clock;
  log: Logger;
  ctx: Ctx;
  pollMs: number;
  /** The kernel clock time as pg-boss's `startAfter` (pg-boss compares with the database's `now()`). */
  startAfterOf(runAt: Date): Date;
}

/**
 * Runs one queue in this process: fetches as many due jobs as it has free slots (pg-boss's
 * `FOR UPDATE SKIP LOCKED` claim, so replicas never take the same job), runs each under its timeout,
 * completes finished ones in one statement per round, and applies the queue's retry schedule to
 * failures. Wakes on `wake()` (a notice that a job was stored, a finished try) or every `pollMs`.
 */
export class QueueRunner<Ctx, P = unknown> {
  private readonly inFlight = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private finished: string[] = [];
  private handBack: string[] = [];
  private running: Promise<void> | undefined;
  private stopping = false;
  private woken = false;
  private wakeUp: (() => void) | undefined;
  private settledWaiters: { armed: boolean; resolve: () => void }[] = [];

  constructor(
    readonly def: RunnableQueue<Ctx, P>,
    private readonly deps: RunnerDeps<Ctx>,
  ) {}

  start(): void {
    this.running ??= this.loop();
  }

  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  settled(): Promise<void> {
    if (!this.running || this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      this.settledWaiters.push({ armed: false, resolve });
      this.wake();
    });
  }

  /**
   * Stops fetching, lets running tries finish for up to `graceMs`, then aborts the rest and hands them
   * back (due again at once, for another process or the next start, with the same try number).
   */
  async stop(graceMs: number): Promise<void> {
    if (!this.running) return;
    this.stopping = true;
    this.wake();
    await this.running;
    const all = () => Promise.allSettled([...this.inFlight.values()].map((f) => f.done));
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), graceMs)));
    if ((await Promise.race([all(), grace])) === 'late') {
      for (const [id, flight] of this.inFlight) {
        this.handBack.push(id);
        flight.abort.abort(new Error('the process is stopping'));
      }
      await all();
    }
    clearTimeout(timer);
    await this.flush();
    for (const waiter of this.settledWaiters.splice(0)) waiter.resolve();
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      try {
        await this.flush();
        const free = this.def.concurrency - this.inFlight.size;
        if (free > 0) {
          for (const waiter of this.settledWaiters) waiter.armed = true;
          const jobs = await this.deps.boss.fetch<StoredJob<P>>(this.def.name, { batchSize: free });
          for (const job of jobs) this.startTry(job);
          // A full batch means more may be due: claim again as soon as a slot frees.
          if (jobs.length === free) continue;
          if (jobs.length === 0 && this.inFlight.size === 0) this.resolveSettled();
        }
      } catch (err) {
        this.deps.log.error({ err, queue: this.def.name }, 'jobs: fetching or completing failed');
        await this.pause(this.deps.pollMs * 4);
        continue;
      }
      await this.pause(this.deps.pollMs);
    }
  }

  /** Completes finished tries and hands back aborted ones, one statement each per round. */
  private async flush(): Promise<void> {
    if (this.finished.length > 0) {
      const ids = this.finished;
      this.finished = [];
      await this.deps.boss.complete(this.def.name, ids);
    }
    if (this.handBack.length > 0) {
      const ids = this.handBack;
      this.handBack = [];
      // pg-boss's own fail: due again at once (retryDelay 0) while crash retries are left.
      await this.deps.boss.fail(this.def.name, ids);
    }
  }

  private resolveSettled(): void {
    const armed = this.settledWaiters.filter((w) => w.armed);
    if (armed.length === 0) return;
    this.settledWaiters = this.settledWaiters.filter((w) => !w.armed);
    for (const waiter of armed) waiter.resolve();
  }

  private pause(ms: number): Promise<void> {
    if (this.woken || this.stopping) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        this.woken = false;
        this.wakeUp = undefined;
        clearTimeout(timer);
        resolve();
      };
      timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  private startTry(job: PgBoss.Job<StoredJob<P>>): void {
    const abort = new AbortController();
    const done = this.runTry(job, abort).finally(() => {
      this.inFlight.delete(job.id);
      this.wake();
    });
    this.inFlight.set(job.id, { abort, done });
  }

  private async runTry(job: PgBoss.Job<StoredJob<P>>, abort: AbortController): Promise<void> {
    const waits = this.def.retryWaitsMs ?? [];
    const attempt = job.data?.attempt ?? 1;
    const key = job.data?.key;
    const run: JobRun<P> = {
      id: job.id,
      queue: this.def.name,
      payload: job.data?.payload as P,
      attempt,
      lastAttempt: attempt > waits.length,
      key,
      signal: abort.signal,
      progress: (done, total) => saveJobProgress(this.deps.db, this.def.name, key ?? job.id, done, total),
    };
    const timer = setTimeout(
      () => abort.abort(new JobFailure(`ran past its ${this.def.timeoutMs} ms timeout`)),
      this.def.timeoutMs,
    );
    try {
      // A handler that ignores its signal still frees the slot when the signal fires.
      await Promise.race([this.def.run(run, this.deps.ctx), aborted(abort.signal)]);
      this.finished.push(job.id);
    } catch (err) {
      if (this.handBack.includes(job.id)) return;
      await this.fail(run, err).catch((e) =>
        // Left active: pg-boss takes it back after its expiry and it runs again (at least once).
        this.deps.log.error({ err: e, queue: this.def.name, job: job.id }, 'jobs: recording a failed try failed'),
      );
    } finally {
      clearTimeout(timer);
    }
  }

  /** The retry schedule: the next try after the next wait (or the failure's Retry-After), or give up. */
  private async fail(run: JobRun<P>, err: unknown): Promise<void> {
    const failure = err instanceof JobFailure ? err : undefined;
    const problem = err instanceof Error ? err.message : String(err);
    const waits = this.def.retryWaitsMs ?? [];
    const wait =
      failure?.final || run.lastAttempt ? undefined : Math.max(waits[run.attempt - 1], failure?.retryAfterMs ?? 0);
    const nextRunAt = wait === undefined ? undefined : new Date(this.deps.clock.now().getTime() + wait);
    if (!failure)
      this.deps.log.warn({ err, queue: this.def.name, job: run.id, attempt: run.attempt }, 'jobs: try failed');
    await this.deps.db.transaction(async (trx) => {
      await this.def.onFailure?.(run, { problem, nextRunAt }, trx, this.deps.ctx);
      const sql = jobSql(trx);
      if (!nextRunAt) return failJobFinally(sql, this.def.name, run.id, problem);
      await this.deps.boss.complete(this.def.name, run.id, { problem }, { db: sql });
      const next: StoredJob<P> = { payload: run.payload, attempt: run.attempt + 1, key: run.key };
      await this.deps.boss.send(this.def.name, next, {
        startAfter: this.deps.startAfterOf(nextRunAt),
        singletonKey: run.key ?? randomUUID(),
        db: sql,
      });
    });
  }
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const fire = () => reject(signal.reason ?? new Error('aborted'));
    if (signal.aborted) fire();
    else signal.addEventListener('abort', fire, { once: true });
  });
}
