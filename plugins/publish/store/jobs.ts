import type { Knex } from 'knex';
import type { Db, Tx } from '../../../kernel/index.ts';

export type JobState = 'queued' | 'running' | 'cancelling' | 'succeeded' | 'failed' | 'cancelled';
/** The states in which a job holds its website (one at a time, a partial unique index). */
export const ACTIVE_STATES: readonly JobState[] = ['queued', 'running', 'cancelling'];

export interface JobRow {
  id: string;
  website_id: string;
  website_name: string;
  state: JobState;
  requested_by: string | null;
  requested_at: Date;
  attempt: number;
  attempts_left: number;
  runner: string | null;
  claim_hash: string | null;
  claimed_at: Date | null;
  /** The kernel job (queue `publish.runs`) that schedules the runs; its lease is the run's. */
  run_job_id: string | null;
  finished_at: Date | null;
  progress_done: number;
  progress_total: number;
  pages: number;
  files: number;
  output: string | null;
  error: string | null;
  log_lines: number;
}

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
}

export interface LogRow {
  id: string;
  attempt: number;
  at: Date;
  level: string;
  message: string;
}

/** Most log lines kept per job; further lines are left out (one line says so). */
export const MAX_LOG_LINES = 5000;

/** The only place with SQL for publish jobs and their logs. Every state change is a guarded update. */
export class JobStore {
  constructor(private readonly db: Db) {}

  async insert(
    row: Pick<JobRow, 'website_id' | 'website_name' | 'requested_by' | 'requested_at' | 'attempts_left'>,
    trx: Tx,
  ): Promise<JobRow> {
    const [created] = await trx('publish_jobs')
      .insert({ ...row, state: 'queued' })
      .returning('*');
    return created;
  }

  get(id: string, trx?: Tx): Promise<JobRow | undefined> {
    return (trx ?? this.db)('publish_jobs').where({ id }).first();
  }

  /** The job, locked until the end of `trx` (a claim decides what becomes of it). */
  lock(id: string, trx: Tx): Promise<JobRow | undefined> {
    return trx('publish_jobs').where({ id }).forUpdate().first();
  }

  async setRunJob(id: string, runJobId: string, trx: Tx): Promise<JobRow> {
    const [row] = await trx('publish_jobs').where({ id }).update({ run_job_id: runJobId }).returning('*');
    return row;
  }

  /** Jobs waiting or running with no kernel job to schedule them (queued before the engine did). */
  unscheduled(): Promise<JobRow[]> {
    return this.db('publish_jobs').whereIn('state', ACTIVE_STATES).whereNull('run_job_id');
  }

  /** Rows a runner is building (or stopping), with the engine job of their run. */
  inRun(limit: number): Promise<Pick<JobRow, 'id' | 'run_job_id'>[]> {
    return this.db('publish_jobs')
      .whereIn('state', ['running', 'cancelling'])
      .whereNotNull('run_job_id')
      .orderBy('claimed_at')
      .limit(limit)
      .select('id', 'run_job_id');
  }

  async list(filter: {
    websiteId?: string;
    state?: JobState;
    limit: number;
    offset: number;
  }): Promise<{ rows: JobRow[]; total: number }> {
    const where = (q: Knex.QueryBuilder) => {
      if (filter.websiteId) q.where({ website_id: filter.websiteId });
      if (filter.state) q.where({ state: filter.state });
      return q;
    };
    const [rows, [count]] = await Promise.all([
      where(this.db('publish_jobs'))
        .orderBy([
          { column: 'requested_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(filter.limit)
        .offset(filter.offset),
      where(this.db('publish_jobs')).count({ n: '*' }),
    ]);
    return { rows, total: Number((count as { n: string | number }).n) };
  }

  /**
   * When a runner last claimed a run (the newest `claimed_at`; a run's start is the only runner contact
   * the rows keep): null when no runner ever claimed one. The jobs list answers it so the dashboard can
   * say that no runner is connected while builds wait.
   */
  async lastClaimAt(): Promise<Date | null> {
    const [row] = await this.db('publish_jobs').max({ at: 'claimed_at' });
    const at = (row as { at: Date | string | null } | undefined)?.at;
    return at ? new Date(at) : null;
  }

  /** Moves the state from one of `from` to `to` with more columns; undefined when the job was not in `from`. */
  async move(
    id: string,
    from: readonly JobState[],
    to: JobState,
    set: Partial<JobRow>,
    trx?: Tx,
    claimHash?: string,
  ): Promise<JobRow | undefined> {
    const q = (trx ?? this.db)('publish_jobs').where({ id }).whereIn('state', from);
    if (claimHash !== undefined) q.where({ claim_hash: claimHash });
    const [row] = await q.update({ ...set, state: to }).returning('*');
    return row;
  }

  /** Progress of a run while its runner reports; the job's state tells the runner whether to go on. */
  async touch(id: string, claimHash: string, set: Partial<JobRow>): Promise<JobRow | undefined> {
    const [row] = await this.db('publish_jobs')
      .where({ id, claim_hash: claimHash })
      .whereIn('state', ['running', 'cancelling'])
      .update(set)
      .returning('*');
    return row;
  }

  /** Appends lines up to MAX_LOG_LINES per job; past it one line says the rest was left out. */
  async appendLogs(job: Pick<JobRow, 'id' | 'attempt'>, lines: readonly LogLine[], at: Date, trx?: Tx): Promise<void> {
    if (!lines.length) return;
    const run = async (tx: Tx) => {
      const [row] = await tx('publish_jobs').where({ id: job.id }).forUpdate().select('log_lines');
      if (!row) return;
      const room = MAX_LOG_LINES - row.log_lines;
      if (room <= 0) return;
      const kept = lines.slice(0, room);
      if (kept.length < lines.length)
        kept[kept.length - 1] = { level: 'warn', message: `log full (${MAX_LOG_LINES} lines): further lines left out` };
      await tx('publish_job_logs').insert(
        kept.map((l) => ({ job_id: job.id, attempt: job.attempt, at, level: l.level, message: l.message })),
      );
      await tx('publish_jobs')
        .where({ id: job.id })
        .update({ log_lines: row.log_lines + kept.length });
    };
    if (trx) await run(trx);
    else await this.db.transaction(run);
  }

  logs(jobId: string, afterId: number, limit: number): Promise<LogRow[]> {
    return this.db('publish_job_logs')
      .where({ job_id: jobId })
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(limit)
      .select('id', 'attempt', 'at', 'level', 'message');
  }
}
