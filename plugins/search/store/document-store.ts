import type { Db, Tx } from '../../../kernel/index.ts';

/** A document as stored (website and locale are '' when the document has none). */
export interface DocumentRow {
  source_type: string;
  source_id: string;
  website_id: string;
  locale: string;
  group_id: string | null;
  config: string;
  title: string;
  body: string;
  url: string | null;
  public: boolean;
  meta: string;
  updated_at: Date;
}

const TABLE = 'search_documents';
const COLUMNS = ['group_id', 'config', 'title', 'body', 'url', 'public', 'meta', 'updated_at'] as const;
const KEY = ['source_type', 'source_id', 'website_id', 'locale'];

/**
 * The documents a change replaces: one DELETE (by source id, and by group when the scope says so)
 * and one multi-row INSERT. The INSERT still resolves a conflict on the natural key: a reindex batch
 * committed between our DELETE's snapshot and our INSERT must not make the write fail.
 */
export async function replaceDocuments(
  trx: Tx,
  sourceType: string,
  sourceIds: string[],
  wholeGroup: string | undefined,
  rows: DocumentRow[],
): Promise<void> {
  if (sourceIds.length > 0 || wholeGroup !== undefined) {
    await trx.raw(
      `DELETE FROM ${TABLE} WHERE source_type = ? AND (source_id = ANY(?::text[])${wholeGroup !== undefined ? ' OR group_id = ?' : ''})`,
      wholeGroup !== undefined ? [sourceType, sourceIds, wholeGroup] : [sourceType, sourceIds],
    );
  }
  if (rows.length === 0) return;
  await trx(TABLE)
    .insert(rows)
    .onConflict(KEY)
    .merge(columnUpdates(trx, (c) => `excluded.${c}`));
}

function columnUpdates(trx: Tx, valueFor: (column: string) => string): Record<string, unknown> {
  const merge: Record<string, unknown> = { indexed_at: trx.raw('clock_timestamp()') };
  for (const c of COLUMNS) merge[c] = trx.raw(valueFor(c));
  return merge;
}

/**
 * One reindex batch. A document a live write replaced meanwhile (newer `updated_at`) keeps its
 * content; every row of the batch gets a fresh `indexed_at`, which is what tells the final prune
 * which documents the reindex saw.
 */
export async function upsertReindexBatch(trx: Tx, rows: DocumentRow[]): Promise<void> {
  if (rows.length === 0) return;
  const keep = (c: string) =>
    `CASE WHEN excluded.updated_at >= ${TABLE}.updated_at THEN excluded.${c} ELSE ${TABLE}.${c} END`;
  await trx(TABLE).insert(rows).onConflict(KEY).merge(columnUpdates(trx, keep));
}

/** Documents of a source type the reindex did not see (their record is gone). */
export async function deleteNotIndexedSince(trx: Tx | Db, sourceType: string, since: Date): Promise<number> {
  return trx(TABLE).where({ source_type: sourceType }).andWhere('indexed_at', '<', since).delete();
}

/** Documents whose source type no loaded plugin contributes any more. */
export async function deleteOtherSourceTypes(db: Db, keep: string[]): Promise<number> {
  return db(TABLE).whereNotIn('source_type', keep).delete();
}

/** Source ids of a group's documents, in pages (for pruning records deleted in bulk). */
export async function groupSourceIds(
  trx: Tx,
  sourceType: string,
  groupId: string,
  after: string,
  limit: number,
): Promise<string[]> {
  const rows: Array<{ source_id: string }> = await trx(TABLE)
    .distinct('source_id')
    .where({ source_type: sourceType, group_id: groupId })
    .andWhere('source_id', '>', after)
    .orderBy('source_id')
    .limit(limit);
  return rows.map((r) => r.source_id);
}

export async function deleteSourceIds(trx: Tx, sourceType: string, sourceIds: string[]): Promise<void> {
  if (sourceIds.length > 0)
    await trx.raw(`DELETE FROM ${TABLE} WHERE source_type = ? AND source_id = ANY(?::text[])`, [sourceType, sourceIds]);
}

/** The configurations documents use now (a handful of values; read once at start). */
export async function configsInUse(db: Db): Promise<string[]> {
  // A loose index scan would need an index on config; at start one pass over the table is fine.
  const rows: Array<{ config: string }> = (await db.raw(`SELECT DISTINCT config FROM ${TABLE}`)).rows;
  return rows.map((r) => r.config);
}
