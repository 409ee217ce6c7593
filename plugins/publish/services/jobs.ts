import type { Readable } from 'node:stream';
import {
  type AuditContext,
  conflict,
  hashToken,
  isUniqueViolation,
  newToken,
  notFound,
  type PluginDeps,
  safeEqual,
  type Tx,
} from '../../../kernel/index.ts';
import type { PublishConfig } from '../config.ts';
import type { PublishFile, PublishWebsite, SitePublishFiles, SitePublishSource } from '../ports.ts';
import { ACTIVE_STATES, type JobRow, JobStore, type LogLine } from '../store/jobs.ts';
import { libraryFile, pageFile } from './layout.ts';

export type PublishDeps = PluginDeps<
  'db' | 'audit' | 'clock' | 'jobs' | 'sitePublishSources' | 'sitePublishFiles',
  never,
  typeof PublishConfig
>;

export type Outcome = 'succeeded' | 'failed' | 'cancelled';

/**
 * The kernel queue that schedules runs: one kernel job per queueing of a publish job (key: the job's
 * id). A runner's claim takes it from the engine, its lease is the engine's, and a run whose runner went
 * silent is taken back by the engine and handed to the next claim. Worked by no process: the runners
 * outside carry it out through the runner routes.
 */
export const RUNS_QUEUE = 'publish.runs';

interface RunPayload {
  jobId: string;
}

/** A claimed run, as the runner routes see it after checking the claim. */
export interface Run {
  job: JobRow;
  claimHash: string;
}

const jobNotFound = () => notFound('Publish job not found', 'PUBLISH_JOB_NOT_FOUND');
const claimLost = () =>
  conflict(
    'This run of the publish job is over (finished, cancelled or taken back after its lease ran out)',
    'PUBLISH_CLAIM_LOST',
  );

/**
 * Publish jobs: a static build of one website, queued by an editor, claimed and carried out by a
 * runner (`cms publish-runner`) through the runner routes, with progress, logs, cancel and retry.
 * States and transitions: the plugin's README. The job row is the record; which job is next, the
 * lease and the take-back of a silent run are the kernel queue `publish.runs`'s. Every state change is
 * a guarded update (the state it leaves is part of the WHERE), so two callers racing never both win.
 */
export class PublishJobs {
  readonly store: JobStore;

  constructor(private readonly deps: PublishDeps) {
    this.store = new JobStore(deps.db);
  }

  private get source(): SitePublishSource | undefined {
    return this.deps.sitePublishSources[0];
  }

  private get files(): SitePublishFiles | undefined {
    return this.deps.sitePublishFiles[0];
  }

  /** How long a run may stay silent before it is taken back. */
  get leaseSeconds(): number {
    return this.deps.pluginConfig.PUBLISH_JOB_LEASE_SECONDS;
  }

  private now(): Date {
    return this.deps.clock.now();
  }

  private get leaseMs(): number {
    return this.leaseSeconds * 1000;
  }

  /** Schedules the job's next run: the kernel job a runner's claim takes, stored with the caller's write. */
  private async schedule(row: JobRow, trx: Tx): Promise<JobRow> {
    const runJobId = await this.deps.jobs.enqueue<RunPayload>(RUNS_QUEUE, { jobId: row.id }, { trx, key: row.id });
    // null: a kernel job of this publish job is already waiting (it then schedules this run too).
    return runJobId ? this.store.setRunJob(row.id, runJobId, trx) : row;
  }

  /** Jobs queued before runs were kernel jobs get one (at start; a no-op once every row has one). */
  async scheduleUnscheduled(): Promise<void> {
    for (const row of await this.store.unscheduled()) await this.deps.db.transaction((trx) => this.schedule(row, trx));
  }

  async website(websiteId: string): Promise<PublishWebsite> {
    const site = await this.source?.website(websiteId);
    if (!site) throw notFound('Website not found', 'WEBSITE_NOT_FOUND');
    return site;
  }

  async get(id: string): Promise<JobRow> {
    const row = await this.store.get(id);
    if (!row) throw jobNotFound();
    return row;
  }

  // ---- what editors do ------------------------------------------------------------------------

  /** Queues a build of the website; one job per website at a time (409 PUBLISH_JOB_ACTIVE). */
  async queue(ctx: AuditContext, websiteId: string): Promise<JobRow> {
    const site = await this.website(websiteId);
    try {
      return await this.deps.db.transaction(async (trx) => {
        const created = await this.store.insert(
          {
            website_id: site.id,
            website_name: site.name,
            requested_by: ctx.actor.type === 'user' ? ctx.actor.id : null,
            requested_at: this.now(),
            attempts_left: this.deps.pluginConfig.PUBLISH_JOB_MAX_ATTEMPTS,
          },
          trx,
        );
        const row = await this.schedule(created, trx);
        await this.deps.audit.record(
          ctx,
          {
            action: 'website.publish',
            targetType: 'website',
            targetId: site.id,
            targetLabel: site.name,
            after: { jobId: row.id },
          },
          trx,
        );
        return row;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw this.activeConflict();
      throw err;
    }
  }

  private activeConflict() {
    return conflict(
      'A publish job of this website is already queued or running; cancel it or wait for it to finish',
      'PUBLISH_JOB_ACTIVE',
    );
  }

  /**
   * Cancels a job: a queued one is cancelled at once, a running one becomes `cancelling` until its
   * runner stops (it learns it at its next report) or its lease runs out. Cancelling a job that is
   * already being cancelled changes nothing (no audit row); a finished job answers 409.
   */
  async cancel(ctx: AuditContext, id: string): Promise<JobRow> {
    for (let round = 0; round < 3; round++) {
      const row = await this.get(id);
      if (row.state === 'cancelling') return row;
      if (!ACTIVE_STATES.includes(row.state))
        throw conflict(`The publish job has already ${row.state}`, 'PUBLISH_JOB_FINISHED');
      const moved = await this.deps.db.transaction(async (trx) => {
        const done =
          row.state === 'queued'
            ? await this.store.move(id, ['queued'], 'cancelled', { finished_at: this.now() }, trx)
            : await this.store.move(id, ['running'], 'cancelling', {}, trx);
        if (!done) return undefined;
        // A queued job's run will not come; a running one ends when its runner stops or is taken back.
        if (row.state === 'queued') await this.deps.jobs.cancel(RUNS_QUEUE, id, { trx });
        await this.store.appendLogs(done, [{ level: 'warn', message: 'cancel requested' }], this.now(), trx);
        await this.deps.audit.record(
          ctx,
          {
            action: 'website.publish_cancel',
            targetType: 'website',
            targetId: done.website_id,
            targetLabel: done.website_name,
            after: { jobId: done.id, state: done.state },
          },
          trx,
        );
        return done;
      });
      if (moved) return moved;
      // The state changed between the read and the update (a runner claimed or finished it): look again.
    }
    throw conflict('The publish job changed state while it was being cancelled; try again', 'PUBLISH_JOB_BUSY');
  }

  /** Queues a failed or cancelled job again, with a fresh count of attempts; its logs are kept. */
  async retry(ctx: AuditContext, id: string): Promise<JobRow> {
    const row = await this.get(id);
    if (row.state !== 'failed' && row.state !== 'cancelled')
      throw conflict(
        `Only a failed or cancelled publish job can be retried; this one is ${row.state}`,
        'PUBLISH_JOB_NOT_RETRYABLE',
      );
    try {
      const moved = await this.deps.db.transaction(async (trx) => {
        const done = await this.store.move(
          id,
          ['failed', 'cancelled'],
          'queued',
          {
            attempts_left: this.deps.pluginConfig.PUBLISH_JOB_MAX_ATTEMPTS,
            requested_at: this.now(),
            finished_at: null,
            runner: null,
            claim_hash: null,
            error: null,
            output: null,
            progress_done: 0,
            progress_total: 0,
          },
          trx,
        );
        if (!done) return undefined;
        const scheduled = await this.schedule(done, trx);
        await this.store.appendLogs(done, [{ level: 'info', message: 'queued again (retry)' }], this.now(), trx);
        await this.deps.audit.record(
          ctx,
          {
            action: 'website.publish',
            targetType: 'website',
            targetId: done.website_id,
            targetLabel: done.website_name,
            after: { jobId: done.id, retry: true },
          },
          trx,
        );
        return scheduled;
      });
      if (!moved) throw conflict('The publish job changed state meanwhile; look again', 'PUBLISH_JOB_BUSY');
      return moved;
    } catch (err) {
      if (isUniqueViolation(err)) throw this.activeConflict();
      throw err;
    }
  }

  // ---- what runners do ------------------------------------------------------------------------

  /**
   * The next due job for this runner, with the claim it presents on every call of the run. The kernel
   * queue says which job is next; a job it hands back because its last runner went silent is queued
   * again here (or ends, see `takeBack`) before it is claimed.
   */
  async claim(runner: string): Promise<{ job: JobRow; claim: string } | undefined> {
    for (;;) {
      const result = await this.deps.db.transaction(async (trx) => {
        const [run] = await this.deps.jobs.claim<RunPayload>(RUNS_QUEUE, { leaseMs: this.leaseMs, trx });
        if (!run) return 'none' as const;
        let job = await this.store.lock(run.payload.jobId, trx);
        if (job && (job.state === 'running' || job.state === 'cancelling')) job = await this.takeBack(job, trx);
        if (job?.state !== 'queued') {
          // Over (cancelled, failed after a silent last run): the kernel job has nothing left to schedule.
          await this.deps.jobs.complete(RUNS_QUEUE, run.id, { trx });
          return 'next' as const;
        }
        const claim = newToken();
        const claimed = await this.store.move(
          job.id,
          ['queued'],
          'running',
          {
            attempt: job.attempt + 1,
            attempts_left: job.attempts_left - 1,
            runner,
            claim_hash: hashToken(claim),
            claimed_at: this.now(),
            run_job_id: run.id,
            progress_done: 0,
            progress_total: 0,
            error: null,
            output: null,
          },
          trx,
        );
        if (!claimed) throw new Error(`publish job ${job.id} changed state under its lock`);
        await this.store.appendLogs(
          claimed,
          [{ level: 'info', message: `claimed by ${runner} (run ${claimed.attempt})` }],
          this.now(),
          trx,
        );
        return { job: claimed, claim };
      });
      if (result === 'none') return undefined;
      if (result !== 'next') return result;
    }
  }

  /** The run a claim belongs to: 404 for an unknown job, 409 PUBLISH_CLAIM_LOST when it is not this claim's any more. */
  async run(id: string, presentedClaim: string): Promise<Run> {
    const job = await this.get(id);
    const claimHash = hashToken(presentedClaim);
    if (
      !job.claim_hash ||
      !safeEqual(job.claim_hash, claimHash) ||
      (job.state !== 'running' && job.state !== 'cancelling')
    )
      throw claimLost();
    return { job, claimHash };
  }

  /** The website and the file of each page the build renders; pages that cannot be built are listed with the reason. */
  async pages(run: Run) {
    const site = await this.website(run.job.website_id);
    const refs = await this.source!.pages(site.id, this.deps.pluginConfig.PUBLISH_MAX_PAGES + 1);
    if (refs.length > this.deps.pluginConfig.PUBLISH_MAX_PAGES)
      throw conflict(
        `The website has more than PUBLISH_MAX_PAGES=${this.deps.pluginConfig.PUBLISH_MAX_PAGES} published pages`,
        'PUBLISH_TOO_MANY_PAGES',
      );
    const pages: Array<{ locale: string; path: string; file: string }> = [];
    const skipped: Array<{ locale: string; path: string; reason: string }> = [];
    for (const ref of refs) {
      const file = pageFile(site, ref);
      if (ref.dynamic)
        skipped.push({ ...pick(ref), reason: 'a dynamic page (one per object) is served by the live site only' });
      else if (!file) skipped.push({ ...pick(ref), reason: 'its path cannot be a file name' });
      else if (!site.locales.includes(ref.locale))
        skipped.push({ ...pick(ref), reason: `its locale ${ref.locale} is not one of the website's` });
      else pages.push({ ...pick(ref), file });
    }
    return { website: site, pages, skipped };
  }

  /** One page's HTML, as the live site serves it (404 PAGE_NOT_PUBLISHED when it was unpublished meanwhile). */
  async renderPage(run: Run, locale: string, path: string): Promise<string> {
    const html = await this.source?.render(run.job.website_id, locale, path);
    if (html === undefined)
      throw notFound(`No published page ${path} (${locale}) in this website`, 'PAGE_NOT_PUBLISHED');
    return html;
  }

  /** The public library files among the references of the rendered pages; private ones never go into a build. */
  async describeFiles(references: readonly string[]) {
    const found: PublishFile[] = (await this.files?.describe(references)) ?? [];
    const files: Array<{ id: string; path: string; file: string; size: number; mimeType: string }> = [];
    const skipped: Array<{ path: string; reason: string }> = [];
    for (const f of found) {
      const file = libraryFile(f.path);
      if (f.visibility !== 'public')
        skipped.push({ path: f.path, reason: 'a private file is never part of a static build' });
      else if (!file) skipped.push({ path: f.path, reason: 'its path cannot be a file name' });
      else files.push({ id: f.id, path: f.path, file, size: f.size, mimeType: f.mimeType });
    }
    return { files, skipped };
  }

  /** A public library file's bytes (404 for an unknown or private file). */
  async openFile(fileId: string): Promise<{ body: Readable; mimeType: string; size: number }> {
    const [file] = (await this.files?.describe([fileId])) ?? [];
    if (!file || file.id !== fileId || file.visibility !== 'public')
      throw notFound('No public library file with this id', 'FILE_NOT_FOUND');
    return { body: await this.files!.open(file.id), mimeType: file.mimeType, size: file.size };
  }

  /** Progress and log lines of a run; prolongs its lease. The answer's state says whether to go on. */
  async progress(run: Run, report: { done: number; total: number; logs: readonly LogLine[] }): Promise<JobRow> {
    // The engine took the run back (its lease ran out): the runner's work is dropped.
    if (!run.job.run_job_id || !(await this.deps.jobs.extend(RUNS_QUEUE, run.job.run_job_id, this.leaseMs)))
      throw claimLost();
    const row = await this.store.touch(run.job.id, run.claimHash, {
      progress_done: Math.min(report.done, report.total),
      progress_total: report.total,
    });
    if (!row) throw claimLost();
    await this.store.appendLogs(row, report.logs, this.now());
    return row;
  }

  /**
   * The end of a run. `succeeded` and `failed` end a running job; a job being cancelled ends
   * `cancelled` when the runner stopped, or `succeeded` when the build was complete before the
   * runner learnt of the cancel (the files were written). `cancelled` while no cancel was asked is 409.
   */
  async finish(
    run: Run,
    report: {
      outcome: Outcome;
      output?: string;
      error?: string;
      pages?: number;
      files?: number;
      logs: readonly LogLine[];
    },
  ): Promise<JobRow> {
    if (report.outcome === 'cancelled' && run.job.state !== 'cancelling')
      throw conflict('Only a job being cancelled ends cancelled', 'PUBLISH_JOB_NOT_CANCELLING');
    const set: Partial<JobRow> = {
      finished_at: this.now(),
      pages: report.pages ?? 0,
      files: report.files ?? 0,
      output: report.output ?? null,
      error: report.outcome === 'failed' ? (report.error ?? 'the runner reported a failure') : null,
    };
    if (report.outcome === 'succeeded') set.progress_done = run.job.progress_total;
    const row = await this.deps.db.transaction(async (trx) => {
      const done = await this.store.move(
        run.job.id,
        ['running', 'cancelling'],
        report.outcome,
        set,
        trx,
        run.claimHash,
      );
      if (!done) return undefined;
      // Its kernel job ends with the run; one the engine took back (lease ran out) lost the run.
      if (!run.job.run_job_id || !(await this.deps.jobs.complete(RUNS_QUEUE, run.job.run_job_id, { trx })))
        throw claimLost();
      const lines: LogLine[] = [...report.logs];
      if (report.outcome === 'succeeded' && run.job.state === 'cancelling')
        lines.push({ level: 'warn', message: 'the cancel came after the build was complete' });
      lines.push({
        level: report.outcome === 'failed' ? 'error' : 'info',
        message:
          report.outcome === 'failed'
            ? `failed: ${set.error}`
            : `${report.outcome} (${set.pages} pages, ${set.files} files)`,
      });
      await this.store.appendLogs(done, lines, this.now(), trx);
      return done;
    });
    if (!row) throw claimLost();
    return row;
  }

  /**
   * Rows whose runner went silent past its lease are moved on without waiting for the next claim (a
   * website whose only runner died can be queued again): queued again while attempts are left, failed
   * otherwise, cancelled when it was being cancelled. The engine job stays due; the next claim finds
   * the row moved on and completes it, or starts the queued run. Returns how many rows moved.
   */
  async takeBackSilentRuns(): Promise<number> {
    const rows = await this.store.inRun(TAKE_BACK_BATCH);
    const live = await this.deps.jobs.leased(
      RUNS_QUEUE,
      rows.map((r) => r.run_job_id!),
    );
    let moved = 0;
    for (const row of rows.filter((r) => !live.has(r.run_job_id!))) {
      const changed = await this.deps.db.transaction(async (trx) => {
        const job = await this.store.lock(row.id, trx);
        // A report or a new claim may have come in between.
        if (!job || (job.state !== 'running' && job.state !== 'cancelling') || job.run_job_id !== row.run_job_id)
          return false;
        if ((await this.deps.jobs.leased(RUNS_QUEUE, [row.run_job_id!])).size > 0) return false;
        return (await this.takeBack(job, trx)) !== undefined;
      });
      if (changed) moved += 1;
    }
    return moved;
  }

  /**
   * A run the engine handed back because its runner reported nothing for the lease: a job being
   * cancelled ends cancelled, a running one is queued again while it has attempts left, otherwise it
   * fails. Inside the claim's transaction, with the row locked.
   */
  private async takeBack(job: JobRow, trx: Tx): Promise<JobRow | undefined> {
    const reason = `the runner ${job.runner ?? ''} reported nothing for ${this.leaseSeconds} s`;
    const [to, set]: [JobRow['state'], Partial<JobRow>] =
      job.state === 'cancelling'
        ? ['cancelled', { finished_at: this.now() }]
        : job.attempts_left > 0
          ? ['queued', {}]
          : ['failed', { finished_at: this.now(), error: `${reason}; no attempts left` }];
    const moved = await this.store.move(job.id, [job.state], to, { ...set, claim_hash: null }, trx);
    if (moved) await this.store.appendLogs(moved, [{ level: 'warn', message: `${reason}: ${to}` }], this.now(), trx);
    return moved;
  }
}

/** Silent runs moved on per round of `takeBackSilentRuns`. */
const TAKE_BACK_BATCH = 100;

const pick = (ref: { locale: string; path: string }) => ({ locale: ref.locale, path: ref.path });
