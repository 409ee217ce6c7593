import { conflict, type Db } from '../../../kernel/index.ts';
import type { SearchSource } from '../ports.ts';
import { deleteNotIndexedSince, deleteOtherSourceTypes, upsertReindexBatch } from '../store/document-store.ts';
import { databaseNow, tryReindexLock } from '../store/server-text.ts';
import type { Indexer } from './indexer.ts';

export interface ReindexReport {
  sources: Array<{ sourceType: string; documents: number; removed: number }>;
  /** Documents of source types no loaded plugin contributes any more. */
  removedOrphans: number;
  durationMs: number;
}

/** Any value; only this plugin takes this advisory lock. */
const REINDEX_LOCK = 7_354_112_021;

/**
 * Rebuilds the index from every source's `allDocuments` without blocking readers or writers for
 * long: each source is read in one repeatable-read transaction (a consistent snapshot) and written
 * in one short transaction per batch (upserts on the natural key; a document a live write replaced
 * meanwhile keeps the newer content). At the end the source's documents the rebuild did not touch
 * are deleted: their records are gone. An advisory lock held by the reading transaction makes a
 * second concurrent reindex answer 409.
 */
export async function reindex(
  db: Db,
  indexer: Indexer,
  sources: readonly SearchSource[],
  only?: string,
): Promise<ReindexReport> {
  const started = Date.now();
  const report: ReindexReport = { sources: [], removedOrphans: 0, durationMs: 0 };
  const chosen = only === undefined ? sources : sources.filter((s) => s.recordType === only);
  for (const source of chosen) {
    const since = await databaseNow(db);
    let documents = 0;
    await db.transaction(
      async (read) => {
        const locked = await tryReindexLock(read, REINDEX_LOCK);
        if (!locked) throw conflict('A reindex is already running; try again when it has finished', 'REINDEX_RUNNING');
        for await (const batch of source.allDocuments(read)) {
          const rows = indexer.rowsOf(source, batch);
          await db.transaction((write) => upsertReindexBatch(write, rows));
          documents += rows.length;
        }
      },
      { isolationLevel: 'repeatable read' },
    );
    const removed = await deleteNotIndexedSince(db, source.recordType, since);
    report.sources.push({ sourceType: source.recordType, documents, removed });
  }
  if (only === undefined)
    report.removedOrphans = await deleteOtherSourceTypes(
      db,
      sources.map((s) => s.recordType),
    );
  report.durationMs = Date.now() - started;
  return report;
}
