import type { Knex } from 'knex';
import type { Db } from '../../../kernel/index.ts';
import type { ObjectRow } from '../model.ts';
import { REGISTRY, type ObjectLocator } from './object-registry.ts';

/** A WHERE fragment with its bindings; built by the query service from the class definition only. */
export interface SqlCondition {
  sql: string;
  bindings: Knex.RawBinding[];
}

export interface SqlOrder {
  /** A column or indexed expression (same text as the index), never request text. */
  sql: string;
  bindings: Knex.RawBinding[];
  direction: 'asc' | 'desc';
}

export interface Page {
  rows: ObjectRow[];
  /** Whether rows follow this page. */
  hasMore: boolean;
  /** Every matching row, only when asked for. */
  total?: number;
  /** Keyset cursor of the next page (admin query), when rows follow. */
  nextCursor?: string;
}

/**
 * One page of objects in one round trip. The page reads one row past the limit to tell `hasMore`.
 * The exact total is optional: counting reads every matching row (attribute expression indexes
 * cannot serve index-only scans), which costs far more than the page on a large class. When asked
 * for, the count and the page are two subqueries of one statement, so the page still walks an index
 * in sort order.
 *
 * A page also stops at `maxBytes` of attribute JSON (at least one object, so every object can be
 * read): rows past the cap never leave the database, and the page answers `hasMore` so the client
 * reads on from there. What one request can hold in memory is bounded by that, whatever `limit` says.
 */
export async function fetchPage(
  db: Db,
  conditions: readonly SqlCondition[],
  order: readonly SqlOrder[],
  limit: number,
  offset: number,
  withTotal: boolean,
  maxBytes: number,
  /** SQL of the sort values each row also carries as `k0`, `k1`... (for a keyset cursor). */
  keys: readonly string[] = [],
): Promise<Page> {
  const filtered = () => {
    const q = db('data_objects');
    for (const c of conditions) q.whereRaw(c.sql, c.bindings);
    return q;
  };
  const orderSql = order.map((o) => `${o.sql} ${o.direction}`).join(', ');
  const orderBindings = order.flatMap((o) => o.bindings);
  const page = filtered()
    .select(
      '*',
      db.raw(`row_number() over (order by ${orderSql}) as page_row`, orderBindings),
      db.raw('octet_length(attributes::text) as row_bytes'),
      ...keys.map((sql, i) => db.raw(`${sql} as k${i}`)),
    )
    .orderByRaw(orderSql, orderBindings)
    .limit(limit + 1)
    .offset(offset);
  const capped = db.raw(
    `select json_build_object(
        'rows', coalesce(json_agg(c.* order by c.page_row) filter (where c.bytes_before < ?), '[]'::json),
        'cut', coalesce(bool_or(c.bytes_before >= ?), false))
       from (select s.*, sum(s.row_bytes) over (order by s.page_row rows unbounded preceding) - s.row_bytes as bytes_before from (?) s) c`,
    [maxBytes, maxBytes, page],
  );
  const result = withTotal
    ? await db.raw('select (?) as total, (?) as page', [filtered().count('*'), capped])
    : await db.raw('select null as total, (?) as page', [capped]);
  const first = result.rows[0] as { total: string | number | null; page: { rows: ObjectRow[]; cut: boolean } };
  const fetched = first.page.rows;
  const hasMore = first.page.cut || fetched.length > limit;
  const rows = fetched.length > limit ? fetched.slice(0, limit) : fetched;
  return first.total === null ? { rows, hasMore } : { rows, hasMore, total: Number(first.total) };
}

/** Objects by id, optionally published only; unknown ids are absent. Only their classes' partitions are read. */
export async function fetchByIds(
  db: Db,
  ids: readonly string[],
  publishedOnly: boolean,
  locator: ObjectLocator = REGISTRY,
): Promise<ObjectRow[]> {
  if (ids.length === 0) return [];
  const classOf = await locator.classesOf(db, ids);
  if (classOf.size === 0) return [];
  const q = db<ObjectRow>('data_objects')
    .whereIn('class_id', [...new Set(classOf.values())])
    .whereIn('id', [...classOf.keys()]);
  if (publishedOnly) q.whereRaw('published');
  return q;
}
