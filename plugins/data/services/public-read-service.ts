import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { notFound, type Db } from '../../../kernel/index.ts';
import type { PreparedReads } from '../store/prepared-reads.ts';
import { cursorTimestamp, publicCountSql, publicPageSql, publishedByIdSql } from '../store/public-read-sql.ts';
import { isUuid } from './attributes.ts';
import type { DataServiceDeps } from './deps.ts';
import { afterCondition, decodeCursor, encodeCursor, type KeyTerm } from './page-cursor.ts';
import type { CachedAnswer, PublicReadCache } from './public-read-cache.ts';
import { publicObjectJson, type PublicRow } from './public-row.ts';
import type { PlannedOrder, QueryInput, QueryService } from './query-service.ts';
import { assertWellFormed } from './well-formed.ts';

/** `?` placeholders of a knex-style fragment as numbered parameters of one statement. */
function numbered(sql: string, bindings: readonly Knex.RawBinding[], param: (value: unknown) => string): string {
  let i = 0;
  return sql.replace(/\?/g, () => param(bindings[i++]));
}

/** `$n` for each value pushed onto `values` (an unnamed closure: no per-request naming cost). */
function parameterOf(values: unknown[]): (value: unknown) => string {
  return (value) => `$${values.push(value)}`;
}

/** The text of a sort term's value, as the cursor carries it. */
function keyText(term: PlannedOrder, sql: string): string {
  if (term.kind === 'timestamp') return cursorTimestamp(sql);
  return `(${sql})::text`;
}

/**
 * The public read path (GET by id, list, query; and `dataObjects.getPublished/queryPublished`):
 * answers as final JSON text, from the read cache when it holds them, otherwise from a named prepared
 * statement on the class's partition that reads only the page's rows (plus a count when asked for);
 * the answer is written from those rows (services/public-row.ts), exactly the bytes the DTO mapping
 * gives.
 */
export class PublicReadService {
  /** By-id statement text per class: built once, not per request. */
  private readonly byIdText = new Map<string, string>();
  /** Page statement texts and cursor tags per query shape. */
  private readonly shapes = new StatementShapes();

  constructor(
    private readonly deps: DataServiceDeps,
    private readonly query: QueryService,
    private readonly cache: PublicReadCache,
    private readonly sql: PreparedReads,
    /** Where the statements run (the read replica or the primary); the object locator asks it too. */
    private readonly db: Db,
  ) {}

  /** A published object; a draft answers the same 404 as an unknown id. */
  async byId(rawId: string): Promise<CachedAnswer> {
    const id = rawId.toLowerCase();
    const key = `o:${id}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const classId = isUuid(id) ? (await this.deps.locator.classesOf(this.db, [id])).get(id) : undefined;
    const cls = classId ? await this.deps.schema.classById(classId) : null;
    if (!classId || !cls) throw notFound('Object not found', 'OBJECT_NOT_FOUND');
    const ticket = this.cache.ticket(classId);
    let text = this.byIdText.get(classId);
    if (text === undefined) {
      text = publishedByIdSql(classId);
      this.byIdText.set(classId, text);
    }
    const rows = await this.sql.rows<PublicRow>(text, [id, classId]);
    if (rows.length === 0) throw notFound('Object not found', 'OBJECT_NOT_FOUND');
    return this.cache.put(key, classId, ticket, publicObjectJson(rows[0], cls.name));
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
    const param = parameterOf(values);
    const where = conditions.map((c) => numbered(c.sql, c.bindings, param));
    const terms: KeyTerm[] = order.map((o) => ({
      sql: numbered(o.sql, o.bindings, param),
      direction: o.direction,
      kind: o.kind,
      nullable: o.nullable,
    }));
    // The count sees the filters only (the same total on every page): its values are the filters'.
    const countValues = values.slice();
    const orderText = `${cls.id}|${terms.map((t) => `${t.sql} ${t.direction}`).join(',')}`;
    const orderTag = this.shapes.tag(orderText);
    const after =
      input.after === undefined ? undefined : afterCondition(terms, decodeCursor(input.after, orderTag, terms), param);
    const ticket = this.cache.ticket(cls.id);
    const limitParam = param(limit + 1);
    const offsetParam = param(input.offset ?? 0);
    const maxBytesParam = param(this.deps.kernel.pluginConfig.DATA_MAX_PAGE_BYTES);
    const withTotal = input.includeTotal === true;
    // The statement's text follows from its fragments (values are parameters): built once per shape.
    const kinds = order.map((o) => o.kind).join(',');
    const text = this.shapes.text(
      `${orderText}\u0000${kinds}\u0000${where.join('\u0001')}\u0000${after ?? ''}\u0000${withTotal}`,
      () =>
        publicPageSql({
          classId: cls.id,
          where,
          after,
          order: terms,
          keys: terms.map((t, i) => keyText(order[i], t.sql)),
          limitParam,
          offsetParam,
          maxBytesParam,
          withTotal,
        }),
    );
    const rows = await this.sql.rows<PublicRow & { total?: number }>(text, values);
    // At most `limit` objects; a row past the page's byte cap comes without attributes (the SQL says why).
    // The answer is written as text, in the key order of `{ objects, hasMore, total?, nextCursor? }`.
    let objects = '';
    let count = 0;
    let cut = false;
    for (const row of rows) {
      if (count === limit) break;
      if (row.attributes_text === null) {
        cut = true;
        break;
      }
      objects += count++ === 0 ? publicObjectJson(row, cls.name) : `,${publicObjectJson(row, cls.name)}`;
    }
    const hasMore = cut || rows.length > limit;
    let answer = `{"objects":[${objects}],"hasMore":${hasMore}`;
    if (input.includeTotal === true) {
      const total =
        rows.length > 0
          ? rows[0].total
          : (await this.sql.rows<{ total: number }>(publicCountSql(cls.id, where), countValues))[0].total;
      answer += `,"total":${JSON.stringify(total)}`;
    }
    if (hasMore && count > 0)
      answer += `,"nextCursor":${JSON.stringify(encodeCursor(orderTag, keysOf(rows[count - 1], terms.length)))}`;
    return this.cache.put(key, cls.id, ticket, `${answer}}`);
  }
}

/** The text of a row's sort values (columns k0, k1...), as the cursor carries them. */
function keysOf(row: PublicRow, count: number): Array<string | null> {
  const out: Array<string | null> = [];
  for (let i = 0; i < count; i++) out.push(row[`k${i}`] ?? null);
  return out;
}

/**
 * Page statement texts and cursor tags by the shape of the query (class, filter and sort fragments),
 * so a request of a known shape builds no SQL and hashes nothing. Shapes are chosen by callers
 * (filter combinations), so each map is emptied when it reaches `max` entries.
 */
class StatementShapes {
  private readonly texts = new Map<string, string>();
  private readonly tags = new Map<string, string>();

  constructor(private readonly max = 2_000) {}

  text(shape: string, build: () => string): string {
    let text = this.texts.get(shape);
    if (text === undefined) {
      if (this.texts.size >= this.max) this.texts.clear();
      text = build();
      this.texts.set(shape, text);
    }
    return text;
  }

  /** Names the order a cursor belongs to (class and sort terms), short. */
  tag(orderText: string): string {
    let tag = this.tags.get(orderText);
    if (tag === undefined) {
      if (this.tags.size >= this.max) this.tags.clear();
      tag = createHash('sha1').update(orderText).digest('base64url').slice(0, 12);
      this.tags.set(orderText, tag);
    }
    return tag;
  }
}
