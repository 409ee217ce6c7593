import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { notFound } from '../../../kernel/index.ts';
import type { ClassRow } from '../model.ts';
import type { PreparedReads } from '../store/prepared-reads.ts';
import { cursorTimestamp, publicPageSql, publishedByIdSql } from '../store/public-read-sql.ts';
import { isUuid } from './attributes.ts';
import type { DataServiceDeps } from './deps.ts';
import { afterCondition, decodeCursor, encodeCursor, type KeyTerm } from './page-cursor.ts';
import type { CachedAnswer, PublicReadCache } from './public-read-cache.ts';
import type { PlannedOrder, QueryInput, QueryService } from './query-service.ts';
import { assertWellFormed } from './well-formed.ts';

/** What PostgreSQL answers for a page (store/public-read-sql.ts). */
interface PageJson {
  rows: unknown[];
  keys: Array<Array<string | null>>;
  cut: boolean;
  total: number | null;
}

/** `?` placeholders of a knex-style fragment as numbered parameters of one statement. */
function numbered(sql: string, bindings: readonly Knex.RawBinding[], param: (value: unknown) => string): string {
  let i = 0;
  return sql.replace(/\?/g, () => param(bindings[i++]));
}

/** The text of a sort term's value, as the cursor carries it. */
function keyText(term: PlannedOrder, sql: string): string {
  if (term.kind === 'timestamp') return cursorTimestamp(sql);
  return `(${sql})::text`;
}

/**
 * The public read path (GET by id, list, query; and `dataObjects.getPublished/queryPublished`):
 * answers as final JSON text, from the read cache when it holds them, otherwise from one named
 * prepared statement on the class's partition that builds the objects' JSON in PostgreSQL. Node
 * reparses and restringifies that text once (native JSON), which gives exactly the bytes the
 * row-by-row DTO mapping gave (jsonb's text form puts spaces after `:` and `,`).
 */
export class PublicReadService {
  /** By-id statement text per class: built once, not per request. */
  private readonly byIdText = new Map<string, string>();

  constructor(
    private readonly deps: DataServiceDeps,
    private readonly query: QueryService,
    private readonly cache: PublicReadCache,
    private readonly sql: PreparedReads,
  ) {}

  /** A published object; a draft answers the same 404 as an unknown id. */
  async byId(rawId: string): Promise<CachedAnswer> {
    const id = rawId.toLowerCase();
    const key = `o:${id}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const classId = isUuid(id) ? (await this.deps.locator.classesOf(this.deps.kernel.db, [id])).get(id) : undefined;
    const cls = classId ? await this.deps.schema.classById(classId) : null;
    if (!classId || !cls) throw notFound('Object not found', 'OBJECT_NOT_FOUND');
    const ticket = this.cache.ticket(classId);
    let text = this.byIdText.get(classId);
    if (text === undefined) this.byIdText.set(classId, (text = publishedByIdSql(classId)));
    const rows = await this.sql.rows<{ body: string }>(text, [id, classId, cls.name]);
    if (rows.length === 0) throw notFound('Object not found', 'OBJECT_NOT_FOUND');
    return this.cache.put(key, classId, ticket, JSON.stringify(JSON.parse(rows[0].body)));
  }

  /** `{ objects, hasMore, total?, nextCursor? }` of published objects. */
  async page(input: QueryInput): Promise<CachedAnswer> {
    assertWellFormed(input);
    const cls = await this.query.classNamed(input.className);
    const limit = input.limit ?? 20;
    const canonical = {
      c: cls.id,
      f: input.filters ?? [],
      o: input.orderBy ?? [],
      l: limit,
      s: input.offset ?? 0,
      g: input.locale ?? null,
      t: input.includeTotal === true,
      a: input.after ?? null,
    };
    const key = `q:${JSON.stringify(canonical)}`;
    const hit = this.cache.get(key);
    if (hit) return hit;

    const { conditions, order } = this.query.plan(cls, input, 'public');
    const values: unknown[] = [];
    const param = (value: unknown) => `$${values.push(value)}`;
    const classNameParam = param(cls.name);
    const where = conditions.map((c) => numbered(c.sql, c.bindings, param));
    const terms: KeyTerm[] = order.map((o) => ({ sql: numbered(o.sql, o.bindings, param), direction: o.direction, kind: o.kind, nullable: o.nullable }));
    const orderTag = tagOf(cls, terms);
    const after = input.after === undefined ? undefined : afterCondition(terms, decodeCursor(input.after, orderTag, terms), param);
    const ticket = this.cache.ticket(cls.id);
    const text = publicPageSql({
      classId: cls.id,
      classNameParam,
      where,
      after,
      order: terms,
      keys: terms.map((t, i) => keyText(order[i], t.sql)),
      limitParam: param(limit + 1),
      offsetParam: param(input.offset ?? 0),
      maxBytesParam: param(this.deps.kernel.pluginConfig.DATA_MAX_PAGE_BYTES),
      withTotal: input.includeTotal === true,
    });
    const [row] = await this.sql.rows<{ body: string }>(text, values);
    const page = JSON.parse(row.body) as PageJson;
    const objects = page.rows.length > limit ? page.rows.slice(0, limit) : page.rows;
    const hasMore = page.cut || page.rows.length > limit;
    const answer: Record<string, unknown> = { objects, hasMore };
    if (page.total !== null) answer.total = page.total;
    if (hasMore && objects.length > 0) answer.nextCursor = encodeCursor(orderTag, page.keys[objects.length - 1]);
    return this.cache.put(key, cls.id, ticket, JSON.stringify(answer));
  }
}

/** Names the order a cursor belongs to (class and sort terms), short. */
function tagOf(cls: ClassRow, terms: readonly KeyTerm[]): string {
  const text = `${cls.id}|${terms.map((t) => `${t.sql} ${t.direction}`).join(',')}`;
  return createHash('sha1').update(text).digest('base64url').slice(0, 12);
}
