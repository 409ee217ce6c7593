import type { Db, Tx } from '../../../kernel/index.ts';
import type { ObjectRow } from '../model.ts';

type Q = Db | Tx;

/** One object row by id, or null. `lock: 'update'` holds the row until the write's transaction ends. */
export async function findObjectById(q: Q, id: string, lock?: 'update'): Promise<ObjectRow | null> {
  const query = q<ObjectRow>('data_objects').where({ id }).first();
  if (lock === 'update') query.forUpdate();
  return (await query) ?? null;
}

/** Rows by id, in no particular order; unknown ids are simply absent. */
export async function findObjectsByIds(q: Q, ids: readonly string[], opts: { publishedOnly?: boolean; lock?: 'update' } = {}): Promise<ObjectRow[]> {
  if (ids.length === 0) return [];
  const query = q<ObjectRow>('data_objects').whereIn('id', ids as string[]);
  if (opts.publishedOnly) query.where({ published: true });
  if (opts.lock === 'update') query.orderBy('id').forUpdate();
  return query;
}

/** Every language row of a translation group, ordered by locale. */
export async function findGroupRows(q: Q, translationGroupId: string, lock?: 'update'): Promise<ObjectRow[]> {
  const query = q<ObjectRow>('data_objects').where({ translation_group_id: translationGroupId }).orderBy('locale');
  if (lock === 'update') query.forUpdate();
  return query;
}

/** Rows of one class matched by key and locale (bulk `onConflict: update`). */
export async function findObjectsByKeys(q: Q, classId: string, pairs: Array<{ key: string; locale: string }>): Promise<ObjectRow[]> {
  if (pairs.length === 0) return [];
  return q<ObjectRow>('data_objects')
    .where({ class_id: classId })
    .whereIn(['key', 'locale'], pairs.map((p) => [p.key, p.locale]))
    .forUpdate();
}

/** An object row before insert: the database fills id (when absent), workflow state and timestamps. */
export type NewObjectValues = Omit<ObjectRow, 'id' | 'workflow_state' | 'created_at' | 'updated_at'> & {
  id?: string;
  workflow_state?: string | null;
};

/** Inserts one or many rows in one statement and returns them in input order. */
export async function insertObjects(q: Q, rows: NewObjectValues[]): Promise<ObjectRow[]> {
  if (rows.length === 0) return [];
  const inserted = await q<ObjectRow>('data_objects')
    .insert(rows.map((r) => ({ ...r, attributes: JSON.stringify(r.attributes) })) as never)
    .returning('*');
  return inserted;
}

export async function updateObjectRow(
  q: Q,
  id: string,
  values: Partial<Pick<ObjectRow, 'key' | 'parent_id' | 'path' | 'published' | 'attributes'>>,
): Promise<ObjectRow> {
  const patch: Record<string, unknown> = { ...values, updated_at: q.fn.now() };
  if (values.attributes !== undefined) patch.attributes = JSON.stringify(values.attributes);
  const [row] = await q<ObjectRow>('data_objects').where({ id }).update(patch).returning('*');
  return row;
}

/** Sets `published` on the given rows where it differs; returns the rows that changed. */
export async function setPublished(q: Q, ids: readonly string[], published: boolean): Promise<ObjectRow[]> {
  if (ids.length === 0) return [];
  return q<ObjectRow>('data_objects')
    .whereIn('id', ids as string[])
    .where('published', !published)
    .update({ published, updated_at: q.fn.now() })
    .returning('*');
}

/** Deletes rows and returns them as they were. */
export async function deleteObjects(q: Q, ids: readonly string[]): Promise<ObjectRow[]> {
  if (ids.length === 0) return [];
  return q<ObjectRow>('data_objects').whereIn('id', ids as string[]).delete().returning('*');
}

/** Rewrites the path of every descendant of a moved or re-keyed object (prefix swap). */
export async function rewriteDescendantPaths(q: Q, classId: string, oldPath: string, newPath: string): Promise<ObjectRow[]> {
  const prefix = oldPath.endsWith('/') ? oldPath : `${oldPath}/`;
  return q<ObjectRow>('data_objects')
    .where({ class_id: classId })
    .whereRaw('starts_with(path, ?)', [prefix])
    .update({ path: q.raw('? || substr(path, ?)', [newPath.endsWith('/') ? newPath : `${newPath}/`, prefix.length + 1]), updated_at: q.fn.now() })
    .returning('*');
}
