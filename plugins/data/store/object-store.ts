import type { Knex } from 'knex';
import type { Db, Tx } from '../../../kernel/index.ts';
import type { ObjectRow } from '../model.ts';
import { REGISTRY, type ObjectLocator } from './object-registry.ts';

type Q = Db | Tx;

/** An object named by id alone (its class is looked up) or by a row the caller holds. */
export type ObjectRef = string | Pick<ObjectRow, 'id' | 'class_id'>;

/**
 * id -> class of the given objects: from the refs themselves when they are rows, otherwise from the
 * registry. Every query below names the classes, so PostgreSQL touches only their partitions.
 */
async function located(
  q: Q,
  refs: readonly ObjectRef[],
  locator: ObjectLocator,
): Promise<{ ids: string[]; classIds: string[] }> {
  const known = new Map<string, string>();
  const asked: string[] = [];
  for (const ref of refs) {
    if (typeof ref === 'string') asked.push(ref);
    else known.set(ref.id, ref.class_id);
  }
  for (const [id, classId] of await locator.classesOf(q, asked)) known.set(id, classId);
  return { ids: [...known.keys()], classIds: [...new Set(known.values())] };
}

/** The rows of `refs`, pinned to their classes' partitions, handed to `run`; no query at all when none is located. */
async function withLocatedRows(
  q: Q,
  refs: readonly ObjectRef[],
  locator: ObjectLocator,
  run: (rows: Knex.QueryBuilder<ObjectRow, ObjectRow[]>) => Promise<ObjectRow[]>,
): Promise<ObjectRow[]> {
  if (refs.length === 0) return [];
  const where = await located(q, refs, locator);
  if (where.ids.length === 0) return [];
  return run(q<ObjectRow, ObjectRow[]>('data_objects').whereIn('class_id', where.classIds).whereIn('id', where.ids));
}

/** One object row by id, or null. `lock: 'update'` holds the row until the write's transaction ends; `share` keeps it from being deleted. */
export async function findObjectById(
  q: Q,
  id: string,
  lock?: 'update' | 'share',
  locator: ObjectLocator = REGISTRY,
): Promise<ObjectRow | null> {
  const classId = (await locator.classesOf(q, [id])).get(id);
  if (!classId) return null;
  const query = q<ObjectRow>('data_objects').where({ class_id: classId, id }).first();
  if (lock === 'update') query.forUpdate();
  if (lock === 'share') query.forKeyShare();
  return (await query) ?? null;
}

/** Rows by id, in no particular order; unknown ids are simply absent. */
export async function findObjectsByIds(
  q: Q,
  ids: readonly string[],
  opts: { publishedOnly?: boolean; lock?: 'update'; locator?: ObjectLocator } = {},
): Promise<ObjectRow[]> {
  return withLocatedRows(q, ids, opts.locator ?? REGISTRY, async (query) => {
    if (opts.publishedOnly) query.where({ published: true });
    if (opts.lock === 'update') query.orderBy('id').forUpdate();
    return query;
  });
}

/** Every language row of a translation group, ordered by locale. */
export async function findGroupRows(
  q: Q,
  translationGroupId: string,
  lock?: 'update',
  locator: ObjectLocator = REGISTRY,
): Promise<ObjectRow[]> {
  const classId = await locator.classOfGroup(q, translationGroupId);
  if (!classId) return [];
  const query = q<ObjectRow>('data_objects')
    .where({ class_id: classId, translation_group_id: translationGroupId })
    .orderBy('locale');
  if (lock === 'update') query.forUpdate();
  return query;
}

/** Rows of one class matched by key and locale (bulk `onConflict: update`). */
export async function findObjectsByKeys(
  q: Q,
  classId: string,
  pairs: Array<{ key: string; locale: string }>,
): Promise<ObjectRow[]> {
  if (pairs.length === 0) return [];
  return q<ObjectRow>('data_objects')
    .where({ class_id: classId })
    .whereIn(
      ['key', 'locale'],
      pairs.map((p) => [p.key, p.locale]),
    )
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

/**
 * A new record (a new translation group): the class check, its unique-value claims and its row in one
 * statement, one round trip. The class row is locked FOR SHARE (as a class read before the write would
 * be, so no class change runs until the write ends) and, when `fields` is given, must still hold those
 * field definitions: the caller validated against a cached definition, and when it changed nothing is
 * written and the answer is null (read the class and try again). The claims go in with ON CONFLICT DO
 * NOTHING; `lost` names the first field whose claim belonged to another group, and the caller then
 * answers 409 and rolls the transaction (or its savepoint) back, the row with it. A key or locale race
 * fails the statement as the plain insert does.
 */
export async function insertRecordWithClaims(
  q: Q,
  row: NewObjectValues,
  claims: ReadonlyArray<{ field: string; scope: string; value: string }>,
  fields: unknown = null,
): Promise<{ row: ObjectRow; lost: string | null } | null> {
  const expected = fields === null ? null : JSON.stringify(fields);
  const result = await q.raw(
    `with cls as (
       select id from data_classes where id = ?::uuid and (?::jsonb is null or fields = ?::jsonb) for share),
     won as (
       insert into data_unique_values (class_id, field, scope, translation_group_id, value)
       select ?::uuid, c.field, c.scope, ?::uuid, c.value from jsonb_to_recordset(?::jsonb) as c(field text, scope text, value text)
       where exists (select 1 from cls)
       on conflict (class_id, field, scope, value) do nothing
       returning field, scope, value)
     insert into data_objects (id, class_id, translation_group_id, locale, key, parent_id, path, published, attributes, created_by)
     select coalesce(?::uuid, gen_random_uuid()), cls.id, ?::uuid, ?::text, ?::text, ?::uuid, ?::text, ?::boolean, ?::jsonb, ?::text from cls
     returning *, (select coalesce(json_agg(json_build_array(won.field, won.scope, won.value)), '[]'::json) from won) as won_claims`,
    [
      row.class_id,
      expected,
      expected,
      row.class_id,
      row.translation_group_id,
      JSON.stringify(claims),
      row.id ?? null,
      row.translation_group_id,
      row.locale,
      row.key,
      row.parent_id,
      row.path,
      row.published,
      JSON.stringify(row.attributes),
      row.created_by,
    ],
  );
  if (result.rows.length === 0) return null;
  const { won_claims: wonClaims, ...inserted } = result.rows[0] as ObjectRow & {
    won_claims: Array<[string, string, string]>;
  };
  const won = new Set(wonClaims.map(([field, scope, value]) => `${field}\u0000${scope}\u0000${value}`));
  const lost = claims.find((c) => !won.has(`${c.field}\u0000${c.scope}\u0000${c.value}`));
  return { row: inserted as ObjectRow, lost: lost ? lost.field : null };
}

export async function updateObjectRow(
  q: Q,
  ref: ObjectRef,
  values: Partial<Pick<ObjectRow, 'key' | 'parent_id' | 'path' | 'published' | 'attributes'>>,
): Promise<ObjectRow> {
  const patch: Record<string, unknown> = { ...values, updated_at: q.fn.now() };
  if (values.attributes !== undefined) patch.attributes = JSON.stringify(values.attributes);
  const where = await located(q, [ref], REGISTRY);
  const [row] = await q<ObjectRow>('data_objects')
    .whereIn('class_id', where.classIds)
    .whereIn('id', where.ids)
    .update(patch)
    .returning('*');
  return row;
}

/** Sets `published` on the given rows where it differs; returns the rows that changed. */
export async function setPublished(q: Q, refs: readonly ObjectRef[], published: boolean): Promise<ObjectRow[]> {
  return withLocatedRows(q, refs, REGISTRY, async (rows) =>
    rows.where('published', !published).update({ published, updated_at: q.fn.now() }).returning('*'),
  );
}

/** Deletes rows and returns them as they were. */
export async function deleteObjects(q: Q, refs: readonly ObjectRef[]): Promise<ObjectRow[]> {
  return withLocatedRows(q, refs, REGISTRY, async (rows) => rows.delete().returning('*'));
}

/** Whether a row outside `rows` has one of them as its parent (children share their parent's class). */
export async function hasChildrenOutside(q: Q, rows: readonly Pick<ObjectRow, 'id' | 'class_id'>[]): Promise<boolean> {
  if (rows.length === 0) return false;
  const ids = rows.map((r) => r.id);
  const child = await q('data_objects')
    .whereIn('class_id', [...new Set(rows.map((r) => r.class_id))])
    .whereIn('parent_id', ids)
    .whereNotIn('id', ids)
    .first('parent_id');
  return child !== undefined;
}

/** Rewrites the path of every descendant of a moved or re-keyed object (prefix swap). */
export async function rewriteDescendantPaths(
  q: Q,
  classId: string,
  oldPath: string,
  newPath: string,
): Promise<ObjectRow[]> {
  const prefix = oldPath.endsWith('/') ? oldPath : `${oldPath}/`;
  return q<ObjectRow>('data_objects')
    .where({ class_id: classId })
    .whereRaw('starts_with(path, ?)', [prefix])
    .update({
      path: q.raw('? || substr(path, ?)', [newPath.endsWith('/') ? newPath : `${newPath}/`, prefix.length + 1]),
      updated_at: q.fn.now(),
    })
    .returning('*');
}

/** Every row of the given translation groups of one class (an import matching its earlier records). */
export async function findGroupRowsOfClass(q: Q, classId: string, groupIds: readonly string[]): Promise<ObjectRow[]> {
  if (groupIds.length === 0) return [];
  return q<ObjectRow>('data_objects')
    .where({ class_id: classId })
    .whereIn('translation_group_id', [...new Set(groupIds)])
    .orderBy(['translation_group_id', 'locale'])
    .forUpdate();
}

/** Many rows of one class changed in one UPDATE ... FROM (values): key, path, published and attributes. */
export async function updateObjectRows(
  q: Q,
  classId: string,
  rows: ReadonlyArray<Pick<ObjectRow, 'id' | 'key' | 'path' | 'published' | 'attributes'>>,
): Promise<void> {
  if (rows.length === 0) return;
  await q.raw(
    `update data_objects d
        set key = x.key, path = x.path, published = x.published, attributes = x.attributes, updated_at = now()
       from jsonb_to_recordset(?::jsonb) as x(id uuid, key text, path text, published boolean, attributes jsonb)
      where d.class_id = ?::uuid and d.id = x.id`,
    [
      JSON.stringify(
        rows.map((r) => ({ id: r.id, key: r.key, path: r.path, published: r.published, attributes: r.attributes })),
      ),
      classId,
    ],
  );
}

/**
 * Many new rows in ONE INSERT ... SELECT FROM jsonb_to_recordset (one parameter however many rows, so
 * the statement is parsed once and no row is sent twice); nothing is returned. An import's batches use it.
 */
export async function insertObjectRows(q: Q, rows: readonly NewObjectValues[]): Promise<void> {
  if (rows.length === 0) return;
  await q.raw(
    `insert into data_objects (id, class_id, translation_group_id, locale, key, parent_id, path, published, attributes, created_by)
     select x.id, x.class_id, x.translation_group_id, x.locale, x.key, x.parent_id, x.path, x.published, x.attributes, x.created_by
       from jsonb_to_recordset(?::jsonb) as x(id uuid, class_id uuid, translation_group_id uuid, locale text, key text,
            parent_id uuid, path text, published boolean, attributes jsonb, created_by text)`,
    [JSON.stringify(rows)],
  );
}

/**
 * Which of these (key, locale) pairs are taken in a class, and by which translation group: one
 * index probe per pair (a join on the unnested pairs, where a long `(key, locale) IN (...)` list
 * made the planner read the whole partition on every import batch).
 */
export async function keyOwners(
  q: Q,
  classId: string,
  pairs: ReadonlyArray<{ key: string; locale: string }>,
): Promise<Array<{ key: string; locale: string; translation_group_id: string }>> {
  if (pairs.length === 0) return [];
  const result = await q.raw(
    `select d.key, d.locale, d.translation_group_id
       from unnest(?::text[], ?::text[]) as p(key, locale)
       join data_objects d on d.class_id = ?::uuid and d.key = p.key and d.locale = p.locale`,
    [pairs.map((p) => p.key), pairs.map((p) => p.locale), classId],
  );
  return result.rows;
}

/** Deletes every object of a class (its partition's rows); answers their ids. */
export async function deleteClassObjects(trx: Tx, classId: string): Promise<string[]> {
  const deleted: Array<{ id: string }> = await trx('data_objects')
    .where({ class_id: classId })
    .delete()
    .returning('id');
  return deleted.map((d) => d.id);
}
