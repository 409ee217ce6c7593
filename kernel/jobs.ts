import type { Tx } from './database.ts';

/**
 * The kernel's job engine, as plugins see it (`jobs` in `needs`). Durable work lives in PostgreSQL
 * (pg-boss's tables in the `pgboss` schema of the system-of-record database), so a job is stored with
 * the write that asked for it, survives a crash, and is taken by exactly one process at a time however
 * many replicas run. A plugin declares the queues it works (`queues`) and its timed work (`schedules`)
 * in its manifest; the kernel runs them where the plugin's routes are mounted.
 */
export interface Jobs {
  /**
   * Stores a job in `queue`. With `trx`, the job commits or rolls back with the caller's write (an
   * event and its delivery, a mail and the change that sent it). Resolves to the job's id, or null when
   * `key` named a job that is still waiting (the new one is a duplicate and is dropped).
   */
  enqueue<P extends object>(queue: string, payload: P, opts?: EnqueueOptions): Promise<string | null>;
  /** Many jobs of one queue in one statement (a burst of deliveries); same options for all. */
  enqueueMany<P extends object>(queue: string, payloads: readonly P[], opts?: EnqueueOptions): Promise<void>;
  /** The last progress a running job of `queue` reported under `key` (its job key, or its id). */
  progress(queue: string, key: string): Promise<JobProgress | undefined>;
  /**
   * Cancels the waiting jobs of `queue` under `key` (a job already running finishes its try). Returns how
   * many were cancelled.
   */
  cancel(queue: string, key: string, opts?: { trx?: Tx }): Promise<number>;
  /**
   * Whether a job of `queue` under `key` is waiting (a retry included) or running, in any process: work
   * that must not race a job it asked for (DDL beside an index build) leaves it to that job.
   */
  unfinished(queue: string, key: string, opts?: { trx?: Tx }): Promise<boolean>;
  /** Wakes this process's runner of `queue` (every runner without one) now, instead of at its next poll. */
  wake(queue?: string): void;
  /**
   * Resolves once this process's runner of `queue` has nothing left that was due when called: a fetch
   * begun after the call found nothing, and no job is running. At once when the queue is not run here.
   * Lets a caller (a test, a drain before shutdown) know that what would have run by now has.
   */
  settled(queue: string): Promise<void>;
  /** Jobs waiting, retrying and running, per queue (for `/metrics` and health). */
  depth(): Promise<QueueDepth[]>;
  /**
   * For a queue whose jobs a worker outside the kernel carries out (a runner process that asks over
   * HTTP; the queue is named in the manifest's `enqueues`, and no process works it): takes up to
   * `limit` due jobs (default 1), each running for `leaseMs` unless `extend`ed, until the caller
   * `complete`s it. A claimed job whose lease ran out is taken back (due again, same id) by the engine's
   * supervision and by the queue's next claim, so it is carried out at least once. The id stays the same
   * across take-backs: a caller that hands jobs to workers tells one run from the next itself (a token
   * per claim), so a worker whose lease ran out cannot extend or complete its successor's run.
   */
  claim<P>(queue: string, opts: ClaimOptions): Promise<ClaimedJob<P>[]>;
  /** Prolongs a claimed job's lease to `leaseMs` from now; false when it is not running any more (taken back or completed). */
  extend(queue: string, id: string, leaseMs: number): Promise<boolean>;
  /**
   * Of these claimed jobs, the ones whose lease has not run out (still the claimer's): an outside
   * worker's bookkeeping finds the runs the engine took back or is about to.
   */
  leased(queue: string, ids: readonly string[]): Promise<Set<string>>;
  /** Ends a claimed job as done, with the caller's write when `trx` is given; false when it was not running any more. */
  complete(queue: string, id: string, opts?: { trx?: Tx }): Promise<boolean>;
}

export interface ClaimOptions {
  /** How long the job stays the claimer's without an `extend`. */
  leaseMs: number;
  limit?: number;
  /** The caller's transaction: the claim commits or rolls back with the caller's write. */
  trx?: Tx;
}

/** A job claimed for an outside worker (`claim`). */
export interface ClaimedJob<P = unknown> {
  id: string;
  payload: P;
  key: string | undefined;
}

export interface EnqueueOptions {
  /** The caller's transaction. */
  trx?: Tx;
  /** When the job becomes due, on the kernel clock (default: now). */
  runAt?: Date;
  /**
   * De-duplication: while a job of the queue with this key is waiting, enqueuing another is a no-op.
   * Once it runs, a new one may wait beside it. Also the key `progress` and `cancel` find it by.
   */
  key?: string;
}

export interface JobProgress {
  done: number;
  total: number;
  updatedAt: Date;
}

export interface QueueDepth {
  queue: string;
  /** Due or scheduled, not running. */
  waiting: number;
  running: number;
}

/** One try of a job, as its handler receives it. */
export interface JobRun<P = unknown> {
  id: string;
  queue: string;
  payload: P;
  /** 1 for the first try; a try cut short by a crash or a shutdown is run again with the same number. */
  attempt: number;
  /** The last try of the retry schedule: a failure now is final. */
  lastAttempt: boolean;
  key: string | undefined;
  /** Aborted when the try runs past the queue's `timeoutMs` or the process stops. */
  signal: AbortSignal;
  /** Records how far the job is (read back through `jobs.progress`). */
  progress(done: number, total: number): Promise<void>;
}

/**
 * A failure a handler throws to steer the retry: `retryAfterMs` waits at least that long before the next
 * try (a receiver's Retry-After); `final` gives up now whatever tries are left.
 */
export class JobFailure extends Error {
  readonly retryAfterMs: number | undefined;
  readonly final: boolean;
  constructor(message: string, opts: { retryAfterMs?: number; final?: boolean } = {}) {
    super(message);
    this.name = 'JobFailure';
    this.retryAfterMs = opts.retryAfterMs;
    this.final = opts.final ?? false;
  }
}

/** A queue a plugin works, declared in its manifest (`queues`). */
export interface QueueDefinition<Ctx, P = unknown> {
  /** `<plugin id>.<name>`, e.g. `mail.outbox`: the name every process enqueues by. */
  name: string;
  /** Jobs of this queue one process runs at once; a function reads it from the plugin's context (its configuration). */
  concurrency: number | ((ctx: Ctx) => number);
  /**
   * Waits before the second, third ... try, in ms: `[60_000, 300_000]` tries three times. Empty or
   * absent: one try. A try that throws is retried after the next wait; after the last, `onFailed` runs.
   */
  retryWaitsMs?: readonly number[];
  /**
   * How long one try may run; its signal is aborted then. A try whose process died is run again once
   * this (plus a grace period) has passed: that is the only case a job runs twice. A function reads it from
   * the plugin's context.
   */
  timeoutMs: number | ((ctx: Ctx) => number);
  /**
   * Whether this process works the queue (default: yes). False leaves it to other processes (a setting
   * such as "this replica queues mail but does not send it"); enqueuing into it still works.
   */
  worksHere?(ctx: Ctx): boolean;
  /** Runs one try; throwing fails it (a `JobFailure` steers the retry). */
  run(job: JobRun<P>, ctx: Ctx): Promise<void>;
  /**
   * Runs in the transaction that schedules the next try (`nextRunAt`) or, when none is left, gives the job
   * up (`nextRunAt` undefined): the place to move a domain record to "retrying" or "dead" together.
   */
  onFailure?(
    job: JobRun<P>,
    failure: { problem: string; nextRunAt: Date | undefined },
    trx: Tx,
    ctx: Ctx,
  ): Promise<void>;
}

/** A queue as one process runs it: its per-process settings read from the plugin's context. */
export type RunnableQueue<Ctx, P = unknown> = Omit<
  QueueDefinition<Ctx, P>,
  'concurrency' | 'timeoutMs' | 'worksHere'
> & {
  concurrency: number;
  timeoutMs: number;
};

/** Timed work declared in a manifest (`schedules`): runs once per tick across every process. */
export interface ScheduleDefinition<Ctx> {
  /** Plugin-local name; the schedule is `<plugin id>.<name>`. */
  name: string;
  /** A cron expression (minutes hours day-of-month month day-of-week), evaluated in UTC. */
  cron: string;
  /** How long one run may take before a dead process's run is taken over (default 15 minutes). */
  timeoutMs?: number;
  run(ctx: Ctx, signal: AbortSignal): Promise<void>;
}
