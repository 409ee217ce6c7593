import type { Knex } from 'knex';
import type { Db } from '../../../kernel/database.ts';
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

/**
 * One page of objects plus the total, in one round trip: the count and the page are two subqueries
 * of one statement, so the page can still walk an index in sort order (a window count would read
 * every matching row before the limit).
 */
export async function fetchPage(db: Db, conditions: readonly SqlCondition[], order: readonly SqlOrder[], limit: number, offset: number): Promise<{ rows: ObjectRow[]; total: number }> {
  const filtered = () => {
    const q = db('data_objects');
    for (const c of conditions) q.whereRaw(c.sql, c.bindings);
    return q;
  };
  const page = filtered().select('*').limit(limit).offset(offset);
  for (const o of order) page.orderByRaw(`${o.sql} ${o.direction}`, o.bindings);
  const count = filtered().count('*');
  const result = await db.raw("select (?) as total, (select coalesce(json_agg(p), '[]'::json) from (?) p) as rows", [count, page]);
  const first = result.rows[0] as { total: string | number; rows: ObjectRow[] };
  return { rows: first.rows, total: Number(first.total) };
}

/** Objects by id, optionally published only; unknown ids are absent. */
export async function fetchByIds(db: Db, ids: readonly string[], publishedOnly: boolean): Promise<ObjectRow[]> {
  if (ids.length === 0) return [];
  const q = db<ObjectRow>('data_objects').whereIn('id', ids as string[]);
  if (publishedOnly) q.whereRaw('published');
  return q;
}
