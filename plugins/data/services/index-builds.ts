import type { Jobs, PluginDeps, QueueDefinition, Tx } from '../../../kernel/index.ts';
import { reconcileClassIndexes } from '../store/field-index-builds.ts';

/** The queue of field index builds (and partition drops of deleted classes), one job per class. */
export const INDEX_BUILDS_QUEUE = 'data.index-builds';

const HOUR_MS = 3600_000;

interface IndexBuildJob {
  classId: string;
}

/**
 * Index work of a class after its definition commits (store/field-index-builds.ts). The job is stored
 * in the transaction that changed the class, keyed by the class: however many changes come while one
 * waits, the class is reconciled once, with the fields it has then.
 */
export class IndexBuilds {
  constructor(private readonly jobs: Jobs) {}

  /** Queues a reconcile of the class's partition with the caller's write (due at `runAt`, default now). */
  async enqueue(classId: string, trx: Tx, runAt?: Date): Promise<void> {
    await this.jobs.enqueue<IndexBuildJob>(INDEX_BUILDS_QUEUE, { classId }, { trx, key: classId, runAt });
  }

  /** Whether a reconcile of the class waits or runs in any process (the class service then leaves DDL to it). */
  busy(classId: string, trx: Tx): Promise<boolean> {
    return this.jobs.unfinished(INDEX_BUILDS_QUEUE, classId, { trx });
  }
}

/**
 * Worked where the data routes run (core-api), one build at a time per process. A failed build is
 * tried again after a minute, then every six hours, five tries in all; after that the next change of
 * the class queues it again. A build cut short by a shutdown or a crash runs again from the start
 * (the half-built index is invalid and is dropped first).
 */
export const indexBuildsQueue: QueueDefinition<PluginDeps<'db'>> = {
  name: INDEX_BUILDS_QUEUE,
  concurrency: 1,
  // A concurrent build over millions of objects takes minutes; a crashed one is taken over after this.
  timeoutMs: 2 * HOUR_MS,
  retryWaitsMs: [60_000, 6 * HOUR_MS, 6 * HOUR_MS, 6 * HOUR_MS],
  // The payload is what `enqueue` above stored.
  run: (job, { db }) => reconcileClassIndexes({ db }, (job.payload as IndexBuildJob).classId, job.signal, job.progress),
};
