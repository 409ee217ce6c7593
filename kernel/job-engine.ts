import { randomUUID } from 'node:crypto';
import PgBoss from 'pg-boss';
import { Gauge } from 'prom-client';
import type { Clock } from './clock.ts';
import type { DatabaseNotifications } from './database-notifications.ts';
import type { Db, Tx } from './database.ts';
import { expirySecondsOf, QueueRunner, type StoredJob } from './job-runner.ts';
import {
  cancelWaitingJobs,
  completeRunningJob,
  configureJobQueue,
  ensureJobQueues,
  hasUnfinishedJob,
  installJobSchema,
  JOB_SCHEMA,
  jobSql,
  leasedJobs,
  leaseJobs,
  readJobProgress,
  readQueueDepths,
  takeBackExpiredJobs,
} from './job-store.ts';
import type {
  ClaimedJob,
  ClaimOptions,
  EnqueueOptions,
  JobProgress,
  Jobs,
  QueueDefinition,
  QueueDepth,
  RunnableQueue,
  ScheduleDefinition,
} from './jobs.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';

/** Default run time of one schedule run before a dead process's run is taken over. */
const SCHEDULE_TIMEOUT_MS = 15 * 60_000;

/** The channel a queue's "a job was stored" notice goes out on. */
const channelOf = (queue: string) => `jobs.${queue}`;

/** The queue a plugin's schedule runs in: `<plugin id>.<name>`. */
export const scheduleQueueName = (pluginId: string, name: string) => `${pluginId}.${name}`;

export interface JobEngineOptions {
  db: Db;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  notifications: DatabaseNotifications;
  /** How often an idle runner looks for due jobs without a notice (a retry coming due). */
  pollMs: number;
  /** How often one process (any) takes back the jobs of processes that died, and archives old ones. */
  superviseSeconds: number;
  /**
   * Whether this process takes its share of the cluster-wide timers: cron schedules and the supervision
   * that takes back jobs of dead processes (each runs in one process at a time, whichever gets there
   * first). Off in tests that run schedules by hand.
   */
  timers: boolean;
}

/**
 * The kernel's `jobs` port on pg-boss. Queues and schedules are registered by the kernel from the
 * manifests of the plugins a process mounts; `start` runs them, `stop` hands back what is unfinished.
 */
export class JobEngine implements Jobs {
  private readonly boss: PgBoss;
  private readonly runners = new Map<string, QueueRunner<unknown>>();
  private readonly schedules: { queue: string; cron: string }[] = [];
  private readonly unsubscribe: (() => void)[] = [];
  private started = false;

  constructor(private readonly opts: JobEngineOptions) {
    this.boss = new PgBoss({
      db: jobSql(opts.db),
      schema: JOB_SCHEMA,
      // The kernel's migration installs the schema; pg-boss upgrades its own tables on a newer version.
      migrate: true,
      supervise: opts.timers,
      schedule: opts.timers,
      maintenanceIntervalSeconds: opts.superviseSeconds,
      // A cron tick's job is handed on by pg-boss's own queue, polled this often.
      cronWorkerIntervalSeconds: Math.min(45, Math.max(1, Math.round(opts.pollMs / 1000))),
    });
    // An EventEmitter without an error listener would throw; pg-boss reports its timers' failures here.
    this.boss.on('error', (err) => opts.logger.error({ err }, 'jobs: engine error'));
    new Gauge({
      name: 'jobs_queue_depth',
      help: 'Jobs not finished per queue: waiting (due or scheduled) and running',
      labelNames: ['queue', 'state'] as const,
      registers: [opts.metrics.registry],
      async collect() {
        this.reset();
        for (const depth of await readQueueDepths(opts.db).catch(() => [])) {
          this.set({ queue: depth.queue, state: 'waiting' }, depth.waiting);
          this.set({ queue: depth.queue, state: 'running' }, depth.running);
        }
      },
    });
  }

  /**
   * Runs `def` in this process once started (a queue is worked where its plugin's routes are mounted),
   * unless its `worksHere` says no; its concurrency and timeout are read from `ctx` when they are functions.
   */
  addQueue<Ctx>(def: QueueDefinition<Ctx>, ctx: Ctx, log: Logger): void {
    if (this.runners.has(def.name)) throw new Error(`job queue "${def.name}" is declared twice`);
    if (def.worksHere && !def.worksHere(ctx)) return;
    const { worksHere: _, ...rest } = def;
    const settings: RunnableQueue<Ctx> = {
      ...rest,
      concurrency: typeof def.concurrency === 'function' ? def.concurrency(ctx) : def.concurrency,
      timeoutMs: typeof def.timeoutMs === 'function' ? def.timeoutMs(ctx) : def.timeoutMs,
    };
    const runner = new QueueRunner<Ctx>(settings, {
      boss: this.boss,
      db: this.opts.db,
      clock: this.opts.clock,
      log,
      ctx,
      pollMs: this.opts.pollMs,
      startAfterOf: (runAt) => this.startAfterOf(runAt),
    });
    this.runners.set(def.name, runner as QueueRunner<unknown>);
  }

  /** A schedule: a queue of one run at a time, fed by pg-boss's cron once per tick across processes. */
  addSchedule<Ctx>(pluginId: string, schedule: ScheduleDefinition<Ctx>, ctx: Ctx, log: Logger): void {
    const queue = scheduleQueueName(pluginId, schedule.name);
    this.addQueue<Ctx>(
      {
        name: queue,
        concurrency: 1,
        timeoutMs: schedule.timeoutMs ?? SCHEDULE_TIMEOUT_MS,
        run: (job, c) => schedule.run(c, job.signal),
      },
      ctx,
      log,
    );
    this.schedules.push({ queue, cron: schedule.cron });
  }

  /** Starts the runners and, with `timers`, registers the schedules (an upsert each). */
  async start(): Promise<void> {
    const { db, logger } = this.opts;
    await installJobSchema(db);
    const created = await ensureJobQueues(db, [...this.runners.keys()]);
    if (created.length)
      logger.warn({ queues: created }, 'jobs: queues created at start (a migration set should declare them)');
    for (const runner of this.runners.values())
      await configureJobQueue(db, runner.def.name, expirySecondsOf(runner.def));
    // Before pg-boss starts: its first cron check runs at once, and a schedule stored after it would
    // wait for the next check (half a minute later).
    if (this.opts.timers)
      for (const { queue, cron } of this.schedules)
        await this.boss.schedule(queue, cron, { payload: {}, attempt: 1 } satisfies StoredJob, { tz: 'UTC' });
    await this.boss.start();
    for (const [name, runner] of this.runners) {
      this.unsubscribe.push(this.opts.notifications.on(channelOf(name), () => runner.wake()));
      runner.start();
    }
    this.started = true;
  }

  /** Stops the runners (running tries get `graceMs` to finish, then are handed back) and pg-boss's timers. */
  async stop(graceMs = 10_000): Promise<void> {
    for (const off of this.unsubscribe.splice(0)) off();
    await Promise.all([...this.runners.values()].map((r) => r.stop(graceMs)));
    if (this.started) await this.boss.stop({ graceful: false, close: false, wait: true });
    this.started = false;
  }

  async enqueue<P extends object>(queue: string, payload: P, opts: EnqueueOptions = {}): Promise<string | null> {
    const runAt = opts.runAt ?? this.opts.clock.now();
    const stored: StoredJob<P> = { payload, attempt: 1, key: opts.key };
    const id = await this.boss.send(queue, stored, {
      startAfter: this.startAfterOf(runAt),
      // Every queue de-duplicates on the key among waiting jobs; a job without one gets a key of its own.
      singletonKey: opts.key ?? randomUUID(),
      db: jobSql(opts.trx ?? this.opts.db),
    });
    if (id) await this.announce(queue, opts.trx);
    return id;
  }

  async enqueueMany<P extends object>(queue: string, payloads: readonly P[], opts: EnqueueOptions = {}): Promise<void> {
    if (payloads.length === 0) return;
    const startAfter = this.startAfterOf(opts.runAt ?? this.opts.clock.now());
    await this.boss.insert(
      payloads.map((payload) => ({
        name: queue,
        data: { payload, attempt: 1 } satisfies StoredJob<P>,
        startAfter,
        singletonKey: randomUUID(),
      })),
      { db: jobSql(opts.trx ?? this.opts.db) },
    );
    await this.announce(queue, opts.trx);
  }

  progress(queue: string, key: string): Promise<JobProgress | undefined> {
    return readJobProgress(this.opts.db, queue, key);
  }

  cancel(queue: string, key: string, opts: { trx?: Tx } = {}): Promise<number> {
    return cancelWaitingJobs(jobSql(opts.trx ?? this.opts.db), queue, key);
  }

  unfinished(queue: string, key: string, opts: { trx?: Tx } = {}): Promise<boolean> {
    return hasUnfinishedJob(opts.trx ?? this.opts.db, queue, key);
  }

  wake(queue?: string): void {
    if (queue === undefined) for (const runner of this.runners.values()) runner.wake();
    else this.runners.get(queue)?.wake();
  }

  settled(queue: string): Promise<void> {
    return this.runners.get(queue)?.settled() ?? Promise.resolve();
  }

  depth(): Promise<QueueDepth[]> {
    return readQueueDepths(this.opts.db);
  }

  async claim<P>(queue: string, opts: ClaimOptions): Promise<ClaimedJob<P>[]> {
    const sql = jobSql(opts.trx ?? this.opts.db);
    await takeBackExpiredJobs(sql, queue);
    const jobs = await this.boss.fetch<StoredJob<P>>(queue, { batchSize: opts.limit ?? 1, db: sql });
    if (jobs.length === 0) return [];
    await leaseJobs(
      sql,
      queue,
      jobs.map((j) => j.id),
      opts.leaseMs,
    );
    return jobs.map((j) => ({ id: j.id, payload: j.data.payload, key: j.data.key }));
  }

  async extend(queue: string, id: string, leaseMs: number): Promise<boolean> {
    return (await leaseJobs(jobSql(this.opts.db), queue, [id], leaseMs)).length === 1;
  }

  leased(queue: string, ids: readonly string[]): Promise<Set<string>> {
    return leasedJobs(jobSql(this.opts.db), queue, ids);
  }

  complete(queue: string, id: string, opts: { trx?: Tx } = {}): Promise<boolean> {
    return completeRunningJob(jobSql(opts.trx ?? this.opts.db), queue, id);
  }

  /** The queues this process runs. */
  queues(): string[] {
    return [...this.runners.keys()];
  }

  /**
   * A notice on the queue's channel (sent at commit when inside a transaction) wakes its runners in
   * every process; this process's own runner is woken directly when there is no transaction to wait for.
   */
  private async announce(queue: string, trx: Tx | undefined): Promise<void> {
    await (trx ?? this.opts.db).raw('SELECT pg_notify(?, ?)', [channelOf(queue), '']);
    if (!trx) this.wake(queue);
  }

  /**
   * pg-boss compares `startAfter` with the database's clock; the kernel's clock may be moved (tests), so
   * the wait from the kernel's now is what is kept.
   */
  private startAfterOf(runAt: Date): Date {
    return new Date(Date.now() + (runAt.getTime() - this.opts.clock.now().getTime()));
  }
}
