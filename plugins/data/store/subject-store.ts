import type { Db, Tx } from '../../../kernel/index.ts';
import type { ObjectRow } from '../model.ts';

/** The working copies' attributes of these objects, by object id. */
export async function draftAttributesOf(
  q: Db | Tx,
  objectIds: readonly string[],
): Promise<Map<string, Record<string, unknown>>> {
  const drafts: Array<{ object_id: string; attributes: Record<string, unknown> }> = await q('data_object_drafts')
    .whereIn('object_id', objectIds as string[])
    .select('object_id', 'attributes');
  return new Map(drafts.map((d) => [d.object_id, d.attributes]));
}

/** The live row of one object, locked until `trx` ends; undefined when it is gone. */
export async function lockObjectRow(trx: Tx, id: string, classId: string): Promise<ObjectRow | undefined> {
  return (await trx('data_objects').where({ id, class_id: classId }).forUpdate().first()) as ObjectRow | undefined;
}

/** The text of a whole JSON string value as `attributes::text` shows it (quotes and escapes), for LIKE. */
export function jsonStringPattern(value: string): string {
  return `%${JSON.stringify(value).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Objects (of `classes`, or every class) whose attributes hold `identifier` as a whole string value
 * anywhere inside, case folded by `fold` (the same rule as the trigram index of migration 0004, so the
 * LIKE is answered from that index on every class partition). The LIKE is the cheap filter: the value
 * in quotes as the JSON text shows it (so `"` and `\` in an identifier are found, and `%` and `_` are
 * only characters); the JSON path test then keeps whole string values only (not keys, not a part of a
 * longer value). Newest first.
 */
export function objectMatchQuery(
  q: Db | Tx,
  fold: (expression: string) => string,
  identifier: string,
  classes?: readonly string[],
) {
  const needle = identifier.trim();
  const text = fold('o.attributes::text');
  const query = q('data_objects as o')
    .join('data_classes as c', 'c.id', 'o.class_id')
    .select('o.*', 'c.name as class_name')
    .whereRaw(`${text} LIKE ${fold('?::text')}`, [jsonStringPattern(needle)])
    .whereRaw(
      `jsonb_path_exists((${text})::jsonb, '$.** \\? (@ == $v)', jsonb_build_object('v', ${fold('?::text')}))`,
      [needle],
    )
    .orderBy('o.updated_at', 'desc');
  if (classes?.length) void query.whereIn('c.name', classes as string[]);
  return query;
}

/**
 * Objects whose working copy holds `identifier` as a whole string value (the same test as
 * `objectMatchQuery`, on `data_object_drafts`), with the live row's columns and the copy's attributes
 * as `draft_attributes`. Newest copy first.
 */
export function draftMatchQuery(
  q: Db | Tx,
  fold: (expression: string) => string,
  identifier: string,
  classes?: readonly string[],
) {
  const needle = identifier.trim();
  const text = fold('d.attributes::text');
  const query = q('data_object_drafts as d')
    .join('data_classes as c', 'c.id', 'd.class_id')
    .join('data_objects as o', (j) => j.on('o.class_id', 'd.class_id').andOn('o.id', 'd.object_id'))
    .select('o.*', 'c.name as class_name', 'd.attributes as draft_attributes')
    .whereRaw(`${text} LIKE ${fold('?::text')}`, [jsonStringPattern(needle)])
    .whereRaw(
      `jsonb_path_exists((${text})::jsonb, '$.** \\? (@ == $v)', jsonb_build_object('v', ${fold('?::text')}))`,
      [needle],
    )
    .orderBy('d.updated_at', 'desc');
  if (classes?.length) void query.whereIn('c.name', classes as string[]);
  return query;
}

/**
 * One statement, planned once, asking each reference's question through the trigram index of
 * migration 0004 (the LIKE pattern is made in SQL from the reference, its `\`, `%` and `_` escaped,
 * and from its JSON text, so a path with a quote or a backslash is found as the attributes show it).
 */
export async function objectsHolding(
  q: Db | Tx,
  fold: (expression: string) => string,
  refs: readonly string[],
  exclude: readonly string[],
): Promise<Array<{ ref: string; holder: string }>> {
  const text = fold('o.attributes::text');
  const likeEscaped = (sql: string) => `replace(replace(replace(${sql}, '\\', '\\\\'), '%', '\\%'), '_', '\\_')`;
  const pattern = `'%' || ${likeEscaped(`trim(both '"' from to_json(f.ref)::text)`)} || '%'`;
  const { rows } = await q.raw(
    `SELECT f.ref, h.holder FROM unnest(?::text[]) AS f(ref)
      CROSS JOIN LATERAL (
        SELECT c.name || '/' || coalesce(o.key, o.id::text) AS holder
          FROM data_objects o JOIN data_classes c ON c.id = o.class_id
         WHERE ${text} LIKE ${fold(pattern)}
           AND NOT (o.id = ANY(?::uuid[]))
         LIMIT 1) h`,
    [refs as string[], exclude as string[]],
  );
  return rows.map((r: { ref: string; holder: string }) => ({ ref: r.ref, holder: `object ${r.holder}` }));
}
