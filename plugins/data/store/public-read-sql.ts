import { partitionOf } from './object-partitions.ts';

/**
 * SQL of the public read path. PostgreSQL builds each object's answer with `json_build_object`, in the
 * key order of `toObjectDto` (model.ts) and with timestamps formatted like `Date#toISOString()`
 * (UTC, milliseconds truncated), so Node neither maps rows nor parses dates: it receives one JSON text
 * per request. Texts use `$n` parameters (they run as named prepared statements, store/prepared-reads.ts).
 */

const iso = (column: string, unit: 'MS' | 'US') => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.${unit}"Z"')`;

/** A timestamp in the cursor's form: ISO 8601 UTC with microseconds (what the column holds, exactly). */
export const cursorTimestamp = (column: string) => iso(column, 'US');

/** One object as the public API answers it; `$className` is the parameter carrying the class name. */
export function objectJson(className: string): string {
  return `json_build_object('id', o.id, 'class', json_build_object('id', o.class_id, 'name', ${className}::text), 'classId', o.class_id,
    'translationGroupId', o.translation_group_id, 'locale', o.locale, 'key', o.key, 'parentId', o.parent_id, 'path', o.path,
    'published', o.published, 'workflowState', o.workflow_state, 'attributes', o.attributes,
    'createdAt', ${iso('o.created_at', 'MS')}, 'updatedAt', ${iso('o.updated_at', 'MS')})`;
}

/** A published object by id: `$1` id, `$2` class id, `$3` class name. One row `{ body }`, or none. */
export function publishedByIdSql(classId: string): string {
  return `select ${objectJson('$3')}::text as body from "${partitionOf(classId)}" o where o.id = $1 and o.class_id = $2 and o.published`;
}

export interface PageSqlInput {
  classId: string;
  /** Parameter of the class name in `values` (e.g. `$1`). */
  classNameParam: string;
  /** WHERE fragments over alias `o`, `$n` parameters already numbered. */
  where: string[];
  /** The keyset condition (`after`), which narrows the page but not the total. */
  after?: string;
  /** ORDER BY terms over alias `o` (id last). */
  order: Array<{ sql: string; direction: 'asc' | 'desc' }>;
  /** Text form of each ORDER BY term's value, for the cursor of the next page. */
  keys: string[];
  limitParam: string;
  offsetParam: string;
  maxBytesParam: string;
  withTotal: boolean;
}

/**
 * One page in one statement, as one JSON text: `{ rows: [object...], keys: [[sort values...]...],
 * cut, total }`. It reads one row past the limit (the caller tells `hasMore` from it) and stops after
 * `maxBytes` of attribute JSON (at least one row): `cut` says rows were left out for that reason. The
 * count, when asked for, is a subquery of the same statement, so the page still walks an index in
 * sort order.
 */
export function publicPageSql(p: PageSqlInput): string {
  const from = `"${partitionOf(p.classId)}" o`;
  const whereOf = (parts: string[]) => (parts.length > 0 ? `where ${parts.join(' and ')}` : '');
  const where = whereOf(p.after ? [...p.where, p.after] : p.where);
  const orderSql = p.order.map((o) => `${o.sql} ${o.direction}`).join(', ');
  // Every match of the query, not only those after the cursor: the same total on every page.
  const total = p.withTotal ? `(select count(*) from ${from} ${whereOf(p.where)})` : 'null';
  return `select json_build_object(
      'rows', coalesce(json_agg(c.dto order by c.page_row) filter (where c.bytes_before < ${p.maxBytesParam}), '[]'::json),
      'keys', coalesce(json_agg(c.keys order by c.page_row) filter (where c.bytes_before < ${p.maxBytesParam}), '[]'::json),
      'cut', coalesce(bool_or(c.bytes_before >= ${p.maxBytesParam}), false),
      'total', ${total})::text as body
    from (
      select s.dto, s.keys, s.page_row, sum(s.row_bytes) over (order by s.page_row rows unbounded preceding) - s.row_bytes as bytes_before
      from (
        select ${objectJson(p.classNameParam)} as dto, json_build_array(${p.keys.join(', ')}) as keys,
          row_number() over (order by ${orderSql}) as page_row, octet_length(o.attributes::text) as row_bytes
        from ${from} ${where}
        order by ${orderSql}
        limit ${p.limitParam} offset ${p.offsetParam}
      ) s
    ) c`;
}
