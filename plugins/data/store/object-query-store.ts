import type { Knex } from 'knex';
import type { Db } from '../../../kernel/index.ts';
import type { ObjectRow } from '../model.ts';

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
}

/**
 * One page of objects in one round trip. The page reads one row past the limit to tell `hasMore`.
 * The exact total is optional: counting reads every matching row (attribute expression indexes
 * cannot serve index-only scans), which costs far more than the page on a large class. When asked
 * for, the count and the page are two subqueries of one statement, so the page still walks an index
 * in sort order.
 */
export async function fetchPage(
  db: Db,
  conditions: readonly SqlCondition[],
  order: readonly SqlOrder[],
  limit: number,
  offset: number,
  withTotal: boolean,
): Promise<Page> {
  const filtered = () => {
    const q = db('data_objects');
    for (const c of conditions) q.whereRaw(c.sql, c.bindings);
    return q;
  };
  const page = filtered().select('*').limit(limit + 1).offset(offset);
  for (const o of order) page.orderByRaw(`${o.sql} ${o.direction}`, o.bindings);
  const result = withTotal
    ? await db.raw("select (?) as total, (select coalesce(json_agg(p), '[]'::json) from (?) p) as rows", [filtered().count('*'), page])
    : await db.raw("select null as total, (select coalesce(json_agg(p), '[]'::json) from (?) p) as rows", [page]);
  const first = result.rows[0] as { total: string | number | null; rows: ObjectRow[] };
  const hasMore = first.rows.length > limit;
  const rows = hasMore ? first.rows.slice(0, limit) : first.rows;
  return first.total === null ? { rows, hasMore } : { rows, hasMore, total: Number(first.total) };
}

/** Objects by id, optionally published only; unknown ids are absent. */
export async function fetchByIds(db: Db, ids: readonly string[], publishedOnly: boolean): Promise<ObjectRow[]> {
  if (ids.length === 0) return [];
  const q = db<ObjectRow>('data_objects').whereIn('id', ids as string[]);
  if (publishedOnly) q.whereRaw('published');
  return q;
}
