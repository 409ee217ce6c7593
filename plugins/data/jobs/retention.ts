import { SYSTEM, type PluginDeps, type ScheduleDefinition } from '../../../kernel/index.ts';
import { announceObjectBulk } from '../events.ts';
import { RetentionStore } from '../store/retention-store.ts';

const DAY_MS = 24 * 3600_000;
export const RETENTION_BATCH_SIZE = 200;
export const RETENTION_MAX_BATCHES = 100;

export type RetentionDeps = PluginDeps<'db' | 'clock' | 'recordHooks' | 'audit'>;

export interface RetentionRunResult {
  deleted: number;
  batches: number;
  classes: Array<{ classId: string; className: string; deleted: number; retentionDays: number }>;
}

/**
 * One run of the object retention job: for each class with `retentionDays`, deletes objects created
 * more than that many days ago (by the clock), 200 per batch and at most 100 batches per run over
 * all classes; what is left waits for the next run. Each batch is one transaction with its unique
 * values and one `object.bulk` event (kind `retention`, actor system); each class that lost rows
 * gets one `retention.purge` audit row. An aborted `signal` (shutdown) ends the run after the batch
 * under way; the next run goes on from there.
 */
export async function runRetention(deps: RetentionDeps, signal?: AbortSignal): Promise<RetentionRunResult> {
  const store = new RetentionStore({ db: deps.db });
  const result: RetentionRunResult = { deleted: 0, batches: 0, classes: [] };
  for (const cls of await store.classesWithRetention()) {
    if (result.batches >= RETENTION_MAX_BATCHES) break;
    const cutoff = new Date(deps.clock.now().getTime() - cls.retention_days * DAY_MS);
    let deleted = 0;
    while (result.batches < RETENTION_MAX_BATCHES && !signal?.aborted) {
      const ids = await deps.db.transaction(async (trx) => {
        const batch = await store.deleteBatch(trx, cls.id, cutoff, RETENTION_BATCH_SIZE);
        await announceObjectBulk(deps.recordHooks, trx, {
          bulkKind: 'retention',
          classId: cls.id,
          className: cls.name,
          ids: batch,
          actor: { type: 'system', id: null },
        });
        return batch;
      });
      if (ids.length === 0) break;
      result.batches += 1;
      deleted += ids.length;
      if (ids.length < RETENTION_BATCH_SIZE) break;
    }
    if (deleted === 0) continue;
    result.deleted += deleted;
    result.classes.push({ classId: cls.id, className: cls.name, deleted, retentionDays: cls.retention_days });
    await deps.audit.record(
      { actor: SYSTEM },
      {
        action: 'retention.purge',
        targetType: 'data_class',
        targetId: cls.id,
        targetLabel: cls.name,
        after: { deleted, retentionDays: cls.retention_days },
      },
    );
  }
  if (result.deleted > 0)
    deps.log.info({ deleted: result.deleted, batches: result.batches }, 'object retention purged objects');
  return result;
}

/**
 * Registered in the data manifest: daily at 02:41 UTC, in one process of the cluster however many
 * run (a schedule runs once per tick), so two runs never delete the same batches.
 */
export const retentionSchedule: ScheduleDefinition<RetentionDeps> = {
  name: 'retention',
  cron: '41 2 * * *',
  run: async (deps, signal) => void (await runRetention(deps, signal)),
};
