import { partitionOf } from './object-partitions.ts';

/**
 * SQL of the public read path. Each statement walks the class's partition (an index in sort order)
 * and returns plain columns, already in their answer form: timestamps formatted like
 * `Date#toISOString()` (UTC, milliseconds truncated), attributes as jsonb's text (so the driver does
 * not parse them, and their byte length is known). The caller writes the answer from them
 * (services/public-row.ts). Building the JSON in PostgreSQL instead (json_build_object per row,
 * ordered json_agg) cost 15x the baseline's execution time for a page of 20 (bench/data-explain.ts),
 * on the CPU Node needs too. Texts use `$n` parameters (named prepared statements,
 * store/prepared-reads.ts).
 */

const iso = (column: string, unit: 'MS' | 'US') =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.${unit}"Z"')`;

/** A timestamp in the cursor's form: ISO 8601 UTC with microseconds (what the column holds, exactly). */
export const cursorTimestamp = (column: string) => iso(column, 'US');

/**
 * The columns of one object, in the order of `toObjectDto` (model.ts); services/public-row.ts reads them.
 * Converted columns get names of their own: ORDER BY resolves a bare name (`created_at`) to an output
 * column first, and would then sort by the text instead of walking the index.
 */
const OBJECT_COLUMNS = `o.id, o.class_id, o.translation_group_id, o.locale, o.key, o.parent_id, o.path, o.published, o.workflow_state,
  o.attributes::text as attributes_text, ${iso('o.created_at', 'MS')} as created_text, ${iso('o.updated_at', 'MS')} as updated_text`;

/** A published object by id: `$1` id, `$2` class id. One row, or none. */
export function publishedByIdSql(classId: string): string {
  return `select ${OBJECT_COLUMNS} from "${partitionOf(classId)}" o where o.id = $1 and o.class_id = $2 and o.published`;
}

export interface PageSqlInput {
  classId: string;
  /** WHERE fragments over alias `o`, `$n` parameters already numbered. */
  where: string[];
  /** The keyset condition (`after`), which narrows the page but not the total. */
  after?: string;
  /** ORDER BY terms over alias `o` (id last). */
  order: Array<{ sql: string; direction: 'asc' | 'desc' }>;
  /** Text form of each ORDER BY term's value, for the cursor of the next page (columns k0, k1...). */
  keys: string[];
  limitParam: string;
  offsetParam: string;
  /** Bytes of attributes text a page may carry (at least one object). */
  maxBytesParam: string;
  /** Adds column `total`: the count of the filters' matches (an InitPlan, computed once). */
  withTotal: boolean;
}

const whereOf = (parts: string[]) => (parts.length > 0 ? `where ${parts.join(' and ')}` : '');

/**
 * One page's rows (one past the limit, so the caller tells `hasMore`), in order, with the text of each
 * row's sort values (k0, k1...). Only `limit + 1` rows are read from the index; the window sum over
 * them is the byte cap: a row whose predecessors already carry `maxBytes` of attributes text comes
 * with `attributes_text` null (the caller stops there: the page was cut), so rows past the cap never
 * leave the database. The total, when asked for, rides on every row (same statement, same snapshot);
 * a page with no rows asks `publicCountSql` for it.
 */
export function publicPageSql(p: PageSqlInput): string {
  const where = whereOf(p.after ? [...p.where, p.after] : p.where);
  const orderSql = p.order.map((o) => `${o.sql} ${o.direction}`).join(', ');
  const keys = p.keys.map((k, i) => `${k} as k${i}`).join(', ');
  // The sort values themselves (s0, s1...) ride along, so the window and the final order name the
  // subquery's own ordering: PostgreSQL then neither numbers the rows nor sorts them again.
  const sorts = p.order.map((o, i) => `${o.sql} as s${i}`).join(', ');
  const outerOrder = (alias: string) => p.order.map((o, i) => `${alias}.s${i} ${o.direction}`).join(', ');
  const total = p.withTotal ? `, (${publicCountSql(p.classId, p.where)}) as total` : '';
  return `select q.id, q.class_id, q.translation_group_id, q.locale, q.key, q.parent_id, q.path, q.published, q.workflow_state,
      case when q.bytes_before < ${p.maxBytesParam} then q.attributes_text end as attributes_text,
      q.created_text, q.updated_text, ${p.keys.map((_, i) => `q.k${i}`).join(', ')}${total}
    from (
      select r.*, coalesce(sum(octet_length(r.attributes_text)) over (order by ${outerOrder('r')} rows between unbounded preceding and 1 preceding), 0) as bytes_before
      from (
        select ${OBJECT_COLUMNS}, ${keys}, ${sorts}
        from "${partitionOf(p.classId)}" o ${where}
        order by ${orderSql} limit ${p.limitParam} offset ${p.offsetParam}
      ) r
    ) q
    order by ${outerOrder('q')}`;
}

/** Every match of the query, not only those after the cursor: the same total on every page. */
export function publicCountSql(classId: string, where: string[]): string {
  return `select count(*)::int as total from "${partitionOf(classId)}" o ${whereOf(where)}`;
}
