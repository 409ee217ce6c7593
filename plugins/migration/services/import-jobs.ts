import {
  type AuditContext,
  type AuditWriter,
  type Db,
  HttpError,
  type JobRun,
  type Jobs,
  type PermissionRegistry,
  type Tx,
  JobFailure,
  badRequest,
  conflict,
  forbidden,
  isUuid,
  notFound,
} from '../../../kernel/index.ts';
import type { ImportJobRow, ImportStore, JobCounts } from '../store/import-store.ts';
import { type ObjectImporter, SourceUnavailable } from './object-import.ts';
import type { SourceService } from './sources.ts';

export const IMPORT_QUEUE = 'migration.object-imports';
const OBJECTS_WRITE = 'data_objects:write';

export interface ImportObjectsInput {
  classes?: string[];
  background?: boolean;
  publish?: boolean;
}

export interface ImportJobView {
  id: string;
  sourceId: string;
  state: ImportJobRow['state'];
  progress: { done: number; total: number };
  counts: JobCounts;
  failed: Array<{ sourceId: string; reason: string }>;
  warnings: string[];
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function toJobView(r: ImportJobRow): ImportJobView {
  return {
    id: r.id,
    sourceId: r.source_id,
    state: r.state,
    progress: { done: r.done, total: r.total },
    counts: r.counts,
    failed: r.failed,
    warnings: r.warnings,
    error: r.error,
    createdAt: iso(r.created_at)!,
    startedAt: iso(r.started_at),
    finishedAt: iso(r.finished_at),
  };
}

/**
 * Object imports as jobs: `start` checks the classes, counts the objects and stores the job (with
 * its audit row) and either runs it in the request or hands it to the queue `migration.object-imports`.
 * A queued try runs until its signal (the queue's timeout, or shutdown) and then hands the rest to a
 * fresh job of the queue, so any size finishes; a try cut off by a crash is taken back by the engine
 * and goes on from the checkpoint.
 */
export class ImportJobs {
  constructor(
    private readonly deps: {
      db: Db;
      audit: AuditWriter;
      jobs: Jobs;
      permissions: PermissionRegistry;
      store: ImportStore;
      sources: SourceService;
      importer: ObjectImporter;
      inlineMax: number;
    },
  ) {}

  async start(ctx: AuditContext, sourceId: string, input: ImportObjectsInput) {
    const { actor } = ctx;
    if (actor.type !== 'user') throw forbidden('Imports are started by a signed-in user', 'FORBIDDEN');
    if (!this.deps.permissions.allows(actor, OBJECTS_WRITE))
      throw forbidden(`Importing objects needs ${OBJECTS_WRITE} too`, 'FORBIDDEN');
    const source = await this.deps.sources.get(sourceId);
    const { classes, warnings } = await this.deps.importer.classes(sourceId, input.classes ?? null);
    const conn = await this.deps.importer.connect(sourceId).catch(this.unavailable);
    try {
      const total = await this.deps.importer.count(conn, classes).catch(this.unavailable);
      if (!input.background && total > this.deps.inlineMax)
        throw badRequest(
          `${total} objects are more than an inline import takes (${this.deps.inlineMax}); send background: true`,
          'background',
          'IMPORT_TOO_LARGE',
        );
      const job = await this.deps.db.transaction(async (trx) => {
        if (await this.deps.store.unfinishedJobOf(trx, sourceId))
          throw conflict('An import of this source is running; wait for it or cancel it', 'IMPORT_RUNNING');
        const row = await this.deps.store.insertJob(trx, {
          source_id: sourceId,
          classes: input.classes ?? null,
          publish: input.publish !== false,
          background: input.background === true,
          actor: {
            id: actor.id,
            email: actor.email,
            displayName: actor.displayName,
            roles: actor.roles,
            permissions: [...actor.permissions],
          },
          total,
        });
        await this.deps.store.checkpoint(trx, row.id, row.checkpoint, {
          done: 0,
          counts: row.counts,
          failed: [],
          warnings,
        });
        await this.deps.audit.record(
          ctx,
          {
            action: 'migration_source.import_objects',
            targetType: 'migration_source',
            targetId: sourceId,
            targetLabel: source.name,
            after: {
              jobId: row.id,
              classes: classes.map((c) => c.name),
              background: input.background === true,
              publish: input.publish !== false,
              total,
            },
          },
          trx,
        );
        if (input.background) await this.deps.jobs.enqueue(IMPORT_QUEUE, { importId: row.id }, { trx, key: row.id });
        return row;
      });
      if (input.background) return { jobId: job.id, background: true as const };
      await this.deps.store.setState(this.deps.db, job.id, 'running', { started: true });
      try {
        await this.deps.importer.run((await this.deps.store.getJob(job.id))!, classes, conn);
      } catch (err) {
        await this.deps.store.setState(this.deps.db, job.id, 'failed', { error: messageOf(err), finished: true });
        if (err instanceof SourceUnavailable) throw this.unavailable(err);
        throw err;
      }
      await this.deps.store.setState(this.deps.db, job.id, 'succeeded', { finished: true, error: null });
      const view = toJobView((await this.deps.store.getJob(job.id))!);
      return {
        jobId: job.id,
        background: false as const,
        counts: view.counts,
        failed: view.failed,
        warnings: view.warnings,
      };
    } finally {
      await conn.end().catch(() => undefined);
    }
  }

  private readonly unavailable = (err: unknown): never => {
    if (isHttpErrorLike(err)) throw err;
    throw new HttpError(502, 'SOURCE_UNAVAILABLE', messageOf(err));
  };

  async get(id: string): Promise<ImportJobView> {
    if (!isUuid(id)) throw notFound('No import job has this id');
    const row = await this.deps.store.getJob(id);
    if (!row) throw notFound('No import job has this id');
    return toJobView(row);
  }

  /** Cancels a queued or running job: a running try stops before its next batch. */
  async cancel(ctx: AuditContext, id: string): Promise<ImportJobView> {
    await this.deps.db.transaction(async (trx) => {
      const row = await this.locked(trx, id);
      if (row.state !== 'queued' && row.state !== 'running')
        throw conflict(
          `The import is ${row.state}; only a queued or running import can be cancelled`,
          'IMPORT_NOT_RUNNING',
        );
      await this.deps.store.setState(trx, id, 'cancelled', { finished: true });
      await this.deps.jobs.cancel(IMPORT_QUEUE, id, { trx });
      await this.auditJob(ctx, trx, row, 'cancel');
    });
    return this.get(id);
  }

  /** Goes on with a failed or cancelled background job from its checkpoint. */
  async resume(ctx: AuditContext, id: string): Promise<ImportJobView> {
    await this.deps.db.transaction(async (trx) => {
      const row = await this.locked(trx, id);
      if (row.state !== 'failed' && row.state !== 'cancelled')
        throw conflict(
          `The import is ${row.state}; only a failed or cancelled import can be resumed`,
          'IMPORT_NOT_RESUMABLE',
        );
      if (await this.deps.store.unfinishedJobOf(trx, row.source_id))
        throw conflict('Another import of this source is running', 'IMPORT_RUNNING');
      await this.deps.store.setState(trx, id, 'queued', { error: null });
      await this.deps.jobs.enqueue(IMPORT_QUEUE, { importId: id }, { trx, key: id });
      await this.auditJob(ctx, trx, row, 'resume');
    });
    return this.get(id);
  }

  private async locked(trx: Tx, id: string): Promise<ImportJobRow> {
    if (!isUuid(id)) throw notFound('No import job has this id');
    const row = await this.deps.store.getJob(id, trx, true);
    if (!row) throw notFound('No import job has this id');
    return row;
  }

  private async auditJob(ctx: AuditContext, trx: Tx, row: ImportJobRow, step: 'cancel' | 'resume') {
    await this.deps.audit.record(
      ctx,
      {
        action: 'migration_source.import_objects',
        targetType: 'migration_source',
        targetId: row.source_id,
        after: { jobId: row.id, step },
      },
      trx,
    );
  }

  /** One try of the queue `migration.object-imports`. */
  async runQueued(job: JobRun<{ importId: string }>): Promise<void> {
    const id = job.payload.importId;
    const row = await this.deps.db.transaction(async (trx) => {
      const r = await this.deps.store.getJob(id, trx, true);
      if (!r || (r.state !== 'queued' && r.state !== 'running')) return undefined;
      await this.deps.store.setState(trx, id, 'running', { started: true });
      return r;
    });
    if (!row) return;
    let outcome: 'finished' | 'aborted' | 'stopped';
    try {
      const { classes } = await this.deps.importer.classes(row.source_id, row.classes);
      const conn = await this.deps.importer.connect(row.source_id);
      try {
        const fresh = (await this.deps.store.getJob(id))!;
        outcome = await this.deps.importer.run(fresh, classes, conn, { signal: job.signal, progress: job.progress });
      } finally {
        await conn.end().catch(() => undefined);
      }
    } catch (err) {
      // A source that went away, or a class folder or class that no longer fits: the user resumes.
      if (err instanceof SourceUnavailable || isHttpErrorLike(err))
        throw new JobFailure(messageOf(err), { final: true });
      throw err;
    }
    if (outcome === 'finished')
      await this.deps.store.setState(this.deps.db, id, 'succeeded', { finished: true, error: null });
    else if (outcome === 'aborted')
      // The try's time is up (or the process stops): a fresh job goes on from the checkpoint.
      await this.deps.jobs.enqueue(IMPORT_QUEUE, { importId: id }, { key: id });
  }

  /** The engine gave the job up (or will try again): the job row says so. */
  async failed(job: JobRun<{ importId: string }>, problem: string, final: boolean, trx: Tx): Promise<void> {
    const row = await this.deps.store.getJob(job.payload.importId, trx, true);
    if (row?.state !== 'running') return;
    if (final) await this.deps.store.setState(trx, row.id, 'failed', { error: problem.slice(0, 1000), finished: true });
  }
}

const isHttpErrorLike = (err: unknown): err is HttpError => err instanceof HttpError;
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 1000);
