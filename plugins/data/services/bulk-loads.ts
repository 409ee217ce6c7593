import type { Tx } from '../../../kernel/index.ts';
import { analyzePartition, dropFieldIndexes, partitionHoldsAtLeast } from '../store/bulk-load-store.ts';
import { reconcileClassIndexes } from '../store/field-index-builds.ts';
import type { DataServiceDeps } from './deps.ts';
import { INDEX_BUILDS_QUEUE } from './index-builds.ts';

/** How long an ACCESS EXCLUSIVE lock on the partition is waited for before a bulk load keeps its indexes. */
const DROP_LOCK_TIMEOUT_MS = 2000;

export interface BulkLoadStart {
  /** The class's field indexes were dropped until `finish` (false: the class keeps them, the load is row by row). */
  deferred: boolean;
  /** The field indexes dropped. */
  indexes: number;
  /** Why the class keeps its indexes: it holds as many objects as the load brings, or its partition was busy. */
  reason?: 'large' | 'busy' | 'unknown class';
}

/**
 * Bulk loads of a class (an import bringing many objects into a new class, or a class with fewer
 * objects than it brings): index upkeep per row is most of an insert's cost (bench/RESULTS.md,
 * bench:migration), while one CREATE INDEX over the loaded rows takes seconds. So `begin` drops the
 * class partition's own field indexes, and `finish` builds them again (the field index reconcile,
 * CREATE INDEX CONCURRENTLY: reads and writes go on) and analyzes the partition.
 *
 * Meanwhile reads stay right: a filter or sort on a field reads the partition without its index
 * (slower, same answer). The keys, the unique checks, the parent's indexes (keys, translation groups,
 * the public newest-first index, the trigram index of the data-subject search) stay in place.
 *
 * A crash between the two must not leave a class unindexed: `begin` stores, in the transaction that
 * drops the indexes, a field index build of the class due after `DATA_BULK_LOAD_HOLD_SECONDS` (the
 * queue `data.index-builds`, whose job states and retries are those of any class change). `hold`
 * moves it later while the load goes on; `finish` builds at once and makes the waiting job due now
 * (it then finds nothing to do, or what a class change during the load asked for). A load
 * that never finishes (its process killed and the import given up) has its indexes built by that job.
 */
export class BulkLoads {
  constructor(private readonly deps: DataServiceDeps) {}

  async begin(className: string, expected: number): Promise<BulkLoadStart> {
    const cls = await this.deps.schema.classByName(className);
    const kept = (reason: BulkLoadStart['reason']): BulkLoadStart => ({ deferred: false, indexes: 0, reason });
    if (!cls) return kept('unknown class');
    if (expected < 1) return kept('large');
    return this.deps.kernel.db.transaction(async (trx) => {
      // A class as large as the load keeps its indexes: rebuilding them would cost more than the upkeep.
      if (await partitionHoldsAtLeast(trx, cls.id, expected)) return kept('large');
      // A build running now (a class change) holds the partition, so the drop's lock times out.
      const dropped = await dropFieldIndexes(trx, cls.id, DROP_LOCK_TIMEOUT_MS);
      if (dropped === null) return kept('busy');
      await this.safetyNet(cls.id, trx);
      return { deferred: true, indexes: dropped.length };
    });
  }

  /** The load goes on: its class's pending index build waits another hold period. */
  async hold(className: string): Promise<void> {
    const cls = await this.deps.schema.classByName(className);
    if (!cls) return;
    await this.deps.kernel.db.transaction((trx) => this.safetyNet(cls.id, trx));
  }

  /**
   * The load is over: the class's field indexes are built now (those that exist are kept, a half-built
   * one from a crash is built again), the partition analyzed, and the waiting build dropped. Idempotent:
   * a load resumed after a crash calls it again.
   */
  async finish(className: string, signal: AbortSignal = new AbortController().signal): Promise<void> {
    const cls = await this.deps.schema.classByName(className);
    if (!cls) return;
    await reconcileClassIndexes({ db: this.deps.kernel.db }, cls.id, signal, async () => undefined);
    await analyzePartition(this.deps.kernel.db, cls.id);
    // The waiting build (this load's, or a class change's that it replaced) becomes due now: it finds
    // the indexes built, or builds what a class change during the load asked for.
    await this.deps.kernel.db.transaction(async (trx) => {
      if ((await this.deps.kernel.jobs.cancel(INDEX_BUILDS_QUEUE, cls.id, { trx })) > 0)
        await this.deps.indexBuilds.enqueue(cls.id, trx);
    });
  }

  private async safetyNet(classId: string, trx: Tx): Promise<void> {
    const holdMs = this.deps.kernel.pluginConfig.DATA_BULK_LOAD_HOLD_SECONDS * 1000;
    const runAt = new Date(this.deps.kernel.clock.now().getTime() + holdMs);
    await this.deps.kernel.jobs.cancel(INDEX_BUILDS_QUEUE, classId, { trx });
    await this.deps.indexBuilds.enqueue(classId, trx, runAt);
  }
}
