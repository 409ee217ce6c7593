import type { Tx } from '../../../kernel/index.ts';
import type { ObjectRow } from '../model.ts';

/** The rows of the search index's source of objects (plugins/data/search-sources.ts). */

/**
 * The rows a bulk write wrote in this transaction. The event names at most 10 ids; beyond, created
 * rows are found through the (class_id, created_at) index (`created_at` is the transaction's `now()`),
 * and only when that does not account for the count (rows were updated) is the class's partition
 * read for `updated_at = now()`.
 */
export async function rowsOfBulkWrite(
  trx: Tx,
  classId: string,
  firstIds: string[],
  count: number,
): Promise<ObjectRow[]> {
  const inClass = () => trx<ObjectRow>('data_objects').where({ class_id: classId });
  if (count <= firstIds.length) return inClass().whereIn('id', firstIds);
  const rows = await inClass().andWhere((q) => q.where('created_at', trx.raw('now()')).orWhereIn('id', firstIds));
  if (rows.length >= count) return rows;
  return inClass().andWhere((q) => q.where('updated_at', trx.raw('now()')).orWhereIn('id', firstIds));
}

/** One object's live row in its class. */
export async function findObjectRow(trx: Tx, classId: string, id: string): Promise<ObjectRow | undefined> {
  return trx<ObjectRow>('data_objects').where({ class_id: classId, id }).first();
}

/** Those of `ids` that name an object (of any class). */
export async function registeredIds(trx: Tx, ids: readonly string[]): Promise<string[]> {
  const rows: Array<{ id: string }> = await trx('data_object_registry')
    .whereIn('id', ids as string[])
    .select('id');
  return rows.map((r) => r.id);
}

/** A class's rows after `after` in id order, `limit` of them (one partition, read in batches). */
export async function objectRowsAfter(trx: Tx, classId: string, after: string, limit: number): Promise<ObjectRow[]> {
  return trx<ObjectRow>('data_objects')
    .where({ class_id: classId })
    .andWhere('id', '>', after)
    .orderBy('id')
    .limit(limit);
}
