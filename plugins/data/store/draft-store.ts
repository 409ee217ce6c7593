import type { Db, Tx } from '../../../kernel/index.ts';

type Q = Db | Tx;

/** A working copy of a published object (`data_object_drafts`): the content its next publish makes live. */
export interface DraftRow {
  object_id: string;
  class_id: string;
  key: string | null;
  parent_id: string | null;
  path: string;
  attributes: Record<string, unknown>;
  updated_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export type DraftValues = Pick<DraftRow, 'object_id' | 'class_id' | 'key' | 'parent_id' | 'path' | 'attributes'> & {
  updated_by: string | null;
};

/** The working copy of one object, or null. `lock: 'update'` holds it until the transaction ends. */
export async function findDraft(q: Q, objectId: string, lock?: 'update'): Promise<DraftRow | null> {
  const query = q<DraftRow>('data_object_drafts').where({ object_id: objectId }).first();
  if (lock === 'update') query.forUpdate();
  return (await query) ?? null;
}

/** The working copies of the given objects (absent ones are left out). */
export async function findDrafts(q: Q, objectIds: readonly string[]): Promise<DraftRow[]> {
  if (objectIds.length === 0) return [];
  return q<DraftRow>('data_object_drafts').whereIn('object_id', [...objectIds]);
}

/** Stores (or replaces) an object's working copy, stamped now. */
export async function saveDraft(q: Q, values: DraftValues): Promise<DraftRow> {
  const row = { ...values, attributes: JSON.stringify(values.attributes), updated_at: q.fn.now() };
  const [saved] = await q<DraftRow>('data_object_drafts')
    .insert(row as never)
    .onConflict('object_id')
    .merge(['key', 'parent_id', 'path', 'attributes', 'updated_by', 'updated_at'])
    .returning('*');
  return saved;
}

/** Removes an object's working copy; true when there was one. */
export async function deleteDraft(q: Q, objectId: string): Promise<boolean> {
  return (await q('data_object_drafts').where({ object_id: objectId }).delete()) > 0;
}

/** The newest working copies across every class, with their class names (a page of at most `limit`). */
export async function listDrafts(
  q: Q,
  opts: { classId?: string; limit: number; offset: number },
): Promise<Array<DraftRow & { class_name: string; locale: string; published: boolean }>> {
  const query = q('data_object_drafts as d')
    .join('data_classes as c', 'c.id', 'd.class_id')
    .join('data_objects as o', (j) => j.on('o.class_id', 'd.class_id').andOn('o.id', 'd.object_id'))
    .select('d.*', 'c.name as class_name', 'o.locale', 'o.published')
    .orderBy([
      { column: 'd.updated_at', order: 'desc' },
      { column: 'd.object_id', order: 'desc' },
    ])
    .limit(opts.limit)
    .offset(opts.offset);
  if (opts.classId !== undefined) query.where('d.class_id', opts.classId);
  return query;
}
