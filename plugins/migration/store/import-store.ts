import type { Clock, Db, Tx } from '../../../kernel/index.ts';

type Q = Db | Tx;

export type JobState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/** Where a job is: the phase, the class (index into the job's class order) and the last Pimcore id done. */
export interface Checkpoint {
  phase: 'objects' | 'relations' | 'done';
  classIndex: number;
  lastId: number;
  /** The class of `classIndex` is bulk loaded: its field indexes wait for the end of its objects. */
  bulk?: boolean;
}

export interface JobCounts {
  created: number;
  updated: number;
  skipped: number;
  failed: number;
}

export interface StoredActor {
  id: string;
  email: string;
  displayName: string;
  roles: string[];
  permissions: string[];
}

export interface ImportJobRow {
  id: string;
  source_id: string;
  state: JobState;
  classes: string[] | null;
  publish: boolean;
  background: boolean;
  actor: StoredActor;
  checkpoint: Checkpoint;
  done: number;
  total: number;
  counts: JobCounts;
  failed: Array<{ sourceId: string; reason: string }>;
  warnings: string[];
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

/**
 * What an id map row maps to: an object's translation group, a library file, or (per website and
 * locale, since one source may be imported into several websites) a page or a snippet.
 */
export type MapKind = 'object' | 'asset' | `page:${string}` | `snippet:${string}`;

/** Failed records and warnings a job keeps at most (the counts go on). */
export const JOB_LIST_MAX = 1000;

/** The only place that writes `migration_import_jobs` and `migration_id_map`. */
export class ImportStore {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async insertJob(
    trx: Tx,
    job: Pick<ImportJobRow, 'source_id' | 'classes' | 'publish' | 'background' | 'actor' | 'total'>,
  ): Promise<ImportJobRow> {
    const [row] = await trx('migration_import_jobs')
      .insert({
        ...job,
        classes: job.classes ? JSON.stringify(job.classes) : null,
        actor: JSON.stringify(job.actor),
        state: 'queued',
        checkpoint: JSON.stringify({ phase: 'objects', classIndex: 0, lastId: 0 } satisfies Checkpoint),
        counts: JSON.stringify({ created: 0, updated: 0, skipped: 0, failed: 0 } satisfies JobCounts),
        created_at: this.clock.now(),
      })
      .returning('*');
    return row;
  }

  async getJob(id: string, q: Q = this.db, lock = false): Promise<ImportJobRow | undefined> {
    const query = q<ImportJobRow>('migration_import_jobs').where({ id }).first();
    return lock ? query.forUpdate() : query;
  }

  /** A running source's job (one import of a source at a time). */
  async unfinishedJobOf(trx: Tx, sourceId: string): Promise<ImportJobRow | undefined> {
    return trx<ImportJobRow>('migration_import_jobs')
      .where({ source_id: sourceId })
      .whereIn('state', ['queued', 'running'])
      .first();
  }

  async setState(
    q: Q,
    id: string,
    state: JobState,
    extra: { error?: string | null; finished?: boolean; started?: boolean } = {},
  ): Promise<void> {
    const now = this.clock.now();
    await q('migration_import_jobs')
      .where({ id })
      .update({
        state,
        ...(extra.error !== undefined ? { error: extra.error } : {}),
        ...(extra.finished ? { finished_at: now } : { finished_at: null }),
        ...(extra.started ? { started_at: q.raw('coalesce(started_at, ?)', [now]) } : {}),
      });
  }

  /** A batch's checkpoint with its counts, failures and warnings (appended, capped). */
  async checkpoint(
    trx: Tx,
    id: string,
    next: Checkpoint,
    add: {
      done: number;
      counts: JobCounts;
      failed: Array<{ sourceId: string; reason: string }>;
      warnings: string[];
    },
  ): Promise<void> {
    await trx.raw(
      `update migration_import_jobs set
         checkpoint = ?::jsonb,
         done = done + ?,
         counts = jsonb_build_object(
           'created', (counts->>'created')::int + ?, 'updated', (counts->>'updated')::int + ?,
           'skipped', (counts->>'skipped')::int + ?, 'failed', (counts->>'failed')::int + ?),
         failed = case when jsonb_array_length(failed) >= ${JOB_LIST_MAX} then failed
                  else failed || (select coalesce(jsonb_agg(e), '[]'::jsonb) from (
                    select e from jsonb_array_elements(?::jsonb) e limit ${JOB_LIST_MAX} - jsonb_array_length(failed)) x) end,
         warnings = case when jsonb_array_length(warnings) >= ${JOB_LIST_MAX} then warnings
                  else warnings || (select coalesce(jsonb_agg(e), '[]'::jsonb) from (
                    select e from jsonb_array_elements(?::jsonb) e limit ${JOB_LIST_MAX} - jsonb_array_length(warnings)) x) end
       where id = ?`,
      [
        JSON.stringify(next),
        add.done,
        add.counts.created,
        add.counts.updated,
        add.counts.skipped,
        add.counts.failed,
        JSON.stringify(add.failed),
        JSON.stringify(add.warnings),
        id,
      ],
    );
  }

  async setTotal(q: Q, id: string, total: number): Promise<void> {
    await q('migration_import_jobs').where({ id }).update({ total });
  }

  /** Pimcore id -> target id of one kind, for the given ids. */
  async mapped(q: Q, sourceId: string, kind: MapKind, pimcoreIds: readonly number[]): Promise<Map<number, string>> {
    if (pimcoreIds.length === 0) return new Map();
    const rows: Array<{ pimcore_id: string; target_id: string }> = await q('migration_id_map')
      .where({ source_id: sourceId, kind })
      .whereIn('pimcore_id', [...new Set(pimcoreIds)])
      .select('pimcore_id', 'target_id');
    return new Map(rows.map((r) => [Number(r.pimcore_id), r.target_id]));
  }

  /** Adds or changes map rows in one statement. */
  async remember(
    trx: Tx,
    sourceId: string,
    rows: ReadonlyArray<{
      kind: MapKind;
      pimcoreId: number;
      targetId: string;
      className?: string;
      pending?: boolean;
    }>,
  ): Promise<void> {
    if (rows.length === 0) return;
    await trx('migration_id_map')
      .insert(
        rows.map((r) => ({
          source_id: sourceId,
          kind: r.kind,
          pimcore_id: r.pimcoreId,
          target_id: r.targetId,
          class_name: r.className ?? null,
          pending_relations: r.pending ?? false,
        })),
      )
      .onConflict(['source_id', 'kind', 'pimcore_id'])
      .merge(['target_id', 'class_name', 'pending_relations']);
  }

  /** The next objects of a class whose relations wait for the relations pass, after `afterId`. */
  async pendingRelations(
    q: Q,
    sourceId: string,
    className: string,
    afterId: number,
    limit: number,
  ): Promise<Array<{ pimcoreId: number; targetId: string }>> {
    const rows: Array<{ pimcore_id: string; target_id: string }> = await q('migration_id_map')
      .where({ source_id: sourceId, kind: 'object', class_name: className, pending_relations: true })
      .where('pimcore_id', '>', afterId)
      .orderBy('pimcore_id')
      .limit(limit)
      .select('pimcore_id', 'target_id');
    return rows.map((r) => ({ pimcoreId: Number(r.pimcore_id), targetId: r.target_id }));
  }

  async clearPending(trx: Tx, sourceId: string, pimcoreIds: readonly number[]): Promise<void> {
    if (pimcoreIds.length === 0) return;
    await trx('migration_id_map')
      .where({ source_id: sourceId, kind: 'object' })
      .whereIn('pimcore_id', [...pimcoreIds])
      .update({ pending_relations: false });
  }
}
