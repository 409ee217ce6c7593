import { createHash } from 'node:crypto';
import { badRequest } from '../../../kernel/index.ts';
import type { ClassRow, FieldDef, ObjectRow } from '../model.ts';
import { fetchPage, type Page, type SqlCondition, type SqlOrder } from '../store/object-query-store.ts';
import { indexedExpression } from '../store/field-index-store.ts';
import { isCalendarDate, inYearRange, YEARS } from './calendar.ts';
import { INDEXED_TYPES, NAME_PATTERN } from './field-definitions.ts';
import type { DataServiceDeps } from './deps.ts';
import { checkLocale } from './object-rules.ts';
import { cursorTimestamp } from '../store/public-read-sql.ts';
import { afterCondition, decodeCursor, encodeCursor, type KeyKind, type KeyTerm } from './page-cursor.ts';
import { assertWellFormed } from './well-formed.ts';

export const OPERATORS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'contains', 'startsWith', 'exists'] as const;
export type Operator = (typeof OPERATORS)[number];

export interface QueryInput {
  className: string;
  filters?: Array<{ field: string; op: string; value?: unknown }>;
  orderBy?: Array<{ field: string; direction?: 'asc' | 'desc' }>;
  limit?: number;
  offset?: number;
  locale?: string;
  /** Count every match (public routes: only when asked; admin route: unless `false`). */
  includeTotal?: boolean;
  /** Keyset cursor (`nextCursor` of the previous page); objects after it in this order. */
  after?: string;
}

/** A sort term with what a keyset cursor needs to know about it. */
export type PlannedOrder = SqlOrder & { kind: KeyKind; nullable: boolean };

/** What a filterable name stands for: a column or an indexed attribute expression, and its kind. */
interface Target {
  sql: string;
  bindings: string[];
  kind: 'text' | 'number' | 'boolean' | 'date' | 'datetime' | 'timestamp' | 'array';
  sortable: boolean;
  /** Whether the value can be null (attributes and `key`). */
  nullable: boolean;
}

// Maps, not plain objects: a name such as `constructor` or `__proto__` must not find a prototype member.
const BUILT_INS: ReadonlyMap<string, Target> = new Map([
  ['key', { sql: 'key', bindings: [], kind: 'text', sortable: true, nullable: true }],
  ['locale', { sql: 'locale', bindings: [], kind: 'text', sortable: true, nullable: false }],
  ['published', { sql: 'published', bindings: [], kind: 'boolean', sortable: true, nullable: false }],
  ['createdAt', { sql: 'created_at', bindings: [], kind: 'timestamp', sortable: true, nullable: false }],
  ['updatedAt', { sql: 'updated_at', bindings: [], kind: 'timestamp', sortable: true, nullable: false }],
]);

const RANGE_OPS = new Set<Operator>(['lt', 'lte', 'gt', 'gte']);
const SQL_OP: ReadonlyMap<string, string> = new Map([
  ['eq', '='],
  ['lt', '<'],
  ['lte', '<='],
  ['gt', '>'],
  ['gte', '>='],
]);
const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Class queries for the admin and public routes. Names in filters and sorts are looked up in the
 * class definition (or the built-in list); values only ever travel as bindings. Attribute
 * expressions are the ones the per-field indexes are built on, so filters and sorts use them.
 */
export class QueryService {
  constructor(private readonly deps: DataServiceDeps) {}

  async classNamed(name: string): Promise<ClassRow> {
    const cls = await this.deps.schema.classByName(name);
    if (!cls) throw badRequest(`No class is named "${name}"`, 'className');
    return cls;
  }

  async run(input: QueryInput, audience: 'admin' | 'public'): Promise<{ cls: ClassRow } & Page> {
    assertWellFormed(input);
    const cls = await this.classNamed(input.className);
    const { conditions, order } = this.plan(cls, input, audience);
    conditions.unshift({ sql: 'class_id = ?', bindings: [cls.id] });
    const withTotal = audience === 'admin' ? input.includeTotal !== false : input.includeTotal === true;
    const keyset = this.keyset(cls, order, input.after);
    if (keyset.after) conditions.push(keyset.after);
    const page = await fetchPage(
      this.deps.kernel.db,
      conditions,
      order,
      input.limit ?? 20,
      input.offset ?? 0,
      withTotal,
      this.deps.kernel.pluginConfig.DATA_MAX_PAGE_BYTES,
      keyset.keys,
    );
    const last = page.rows.at(-1) as (ObjectRow & Record<string, string | null>) | undefined;
    if (!page.hasMore || !last) return { cls, ...page };
    const values = keyset.keys.map((_, i) => last[`k${i}`] ?? null);
    return { cls, ...page, nextCursor: encodeCursor(keyset.tag, values) };
  }

  /**
   * Keyset paging of the admin query: the sort values each row carries (`k0`, `k1`...) and, with a
   * cursor, the condition "after it". Sort terms of stored definitions carry no bindings (their field
   * names are literals), so a term can appear several times in the condition.
   */
  private keyset(
    cls: ClassRow,
    order: readonly PlannedOrder[],
    after: string | undefined,
  ): { tag: string; keys: string[]; after?: SqlCondition } {
    const terms: KeyTerm[] = order.map((o) => ({
      sql: o.sql,
      direction: o.direction,
      kind: o.kind,
      nullable: o.nullable,
    }));
    const tag = createHash('sha1')
      .update(`admin|${cls.id}|${terms.map((t) => `${t.sql} ${t.direction}`).join(',')}`)
      .digest('base64url')
      .slice(0, 12);
    const keys = order.map((o) => (o.kind === 'timestamp' ? cursorTimestamp(o.sql) : `(${o.sql})::text`));
    if (after === undefined || order.some((o) => o.bindings.length > 0)) return { tag, keys };
    // afterCondition numbers values in its own order, not the text's: markers first, then `?` in text order.
    const values: string[] = [];
    const marked = afterCondition(terms, decodeCursor(after, tag, terms), (value) => `$${values.push(value)}$`);
    const bindings: string[] = [];
    const sql = marked.replace(/\$(\d+)\$/g, (_, n: string) => {
      bindings.push(values[Number(n) - 1]);
      return '?';
    });
    return { tag, keys, after: { sql, bindings } };
  }

  /**
   * The WHERE conditions (besides the class) and the ORDER BY of a query, id last as tie-breaker.
   * Field names the class defines go into the SQL as literals (they match NAME_PATTERN), values only
   * as bindings, so one text serves every value and its plan still matches the field indexes.
   */
  plan(
    cls: ClassRow,
    input: QueryInput,
    audience: 'admin' | 'public',
  ): { conditions: SqlCondition[]; order: PlannedOrder[] } {
    const conditions: SqlCondition[] = [];
    if (audience === 'public') conditions.push({ sql: 'published', bindings: [] });
    if (input.locale !== undefined) conditions.push({ sql: 'locale = ?', bindings: [checkLocale(input.locale)] });
    for (const [i, f] of (input.filters ?? []).entries())
      conditions.push(this.condition(cls, f, `filters.${i}`, audience));
    const order: PlannedOrder[] = (input.orderBy ?? []).map((o, i) => {
      const target = this.target(cls, o.field, `orderBy.${i}.field`, audience);
      if (!target.sortable) throw badRequest(`${o.field} cannot be sorted`, `orderBy.${i}.field`);
      return {
        sql: target.sql,
        bindings: target.bindings,
        direction: o.direction ?? 'asc',
        kind: keyKind(target),
        nullable: target.nullable,
      };
    });
    if (order.length === 0)
      order.push({ sql: 'created_at', bindings: [], direction: 'desc', kind: 'timestamp', nullable: false });
    // The id tie-breaker keeps pages stable; it follows the last direction so one index scan serves it.
    order.push({
      sql: 'id',
      bindings: [],
      direction: order[order.length - 1].direction,
      kind: 'uuid',
      nullable: false,
    });
    return { conditions, order };
  }

  private target(cls: ClassRow, name: string, at: string, audience: 'admin' | 'public'): Target {
    const builtIn = BUILT_INS.get(name);
    if (builtIn) {
      if (name === 'published' && audience === 'public')
        throw badRequest('published cannot be filtered on the public API', at);
      return builtIn;
    }
    const field = cls.fields.find((f) => f.name === name);
    if (!field) throw badRequest(`Unknown field "${name}"`, at);
    // Stored definitions were checked against NAME_PATTERN; anything else would still travel as a binding.
    const literal = NAME_PATTERN.test(field.name);
    const quoted = literal ? `'${field.name}'` : '?';
    const bindings = literal ? [] : [field.name];
    if (field.type === 'array')
      return { sql: `(attributes -> ${quoted})`, bindings, kind: 'array', sortable: false, nullable: true };
    if (!INDEXED_TYPES.has(field.type))
      throw badRequest(`Field "${name}" (${field.type}) cannot be filtered or sorted`, at);
    return { sql: indexedExpression(field, quoted), bindings, kind: kindOf(field), sortable: true, nullable: true };
  }

  private condition(
    cls: ClassRow,
    filter: { field: string; op: string; value?: unknown },
    at: string,
    audience: 'admin' | 'public',
  ): SqlCondition {
    const t = this.target(cls, filter.field, `${at}.field`, audience);
    const op = filter.op as Operator;
    if (!(OPERATORS as readonly string[]).includes(op))
      throw badRequest(`Unknown operator; use one of ${OPERATORS.join(', ')}`, `${at}.op`);
    if (op === 'exists') {
      if (typeof filter.value !== 'boolean') throw badRequest('exists takes true or false', `${at}.value`);
      return { sql: `${t.sql} is ${filter.value ? 'not ' : ''}null`, bindings: t.bindings };
    }
    if (t.kind === 'array') {
      if (op !== 'contains') throw refuseOperator(op, filter.field, at);
      return { sql: `${t.sql} @> ?::jsonb`, bindings: [...t.bindings, JSON.stringify([filter.value])] };
    }
    switch (op) {
      case 'eq':
        return { sql: `${t.sql} = ?`, bindings: [...t.bindings, coerce(t, filter.value, `${at}.value`)] };
      case 'ne':
        // "Different or no value": objects without the field are included.
        return {
          sql: `${t.sql} is distinct from ?`,
          bindings: [...t.bindings, coerce(t, filter.value, `${at}.value`)],
        };
      case 'in': {
        if (!Array.isArray(filter.value) || filter.value.length === 0 || filter.value.length > 100)
          throw badRequest('in takes an array of 1 to 100 values', `${at}.value`);
        const values = filter.value.map((v) => coerce(t, v, `${at}.value`));
        return { sql: `${t.sql} in (${values.map(() => '?').join(', ')})`, bindings: [...t.bindings, ...values] };
      }
      case 'contains':
      case 'startsWith': {
        if (t.kind !== 'text') throw refuseOperator(op, filter.field, at);
        if (typeof filter.value !== 'string' || filter.value === '')
          throw badRequest(`${op} takes a non-empty string`, `${at}.value`);
        const pattern = op === 'contains' ? `%${escapeLike(filter.value)}%` : `${escapeLike(filter.value)}%`;
        return { sql: `${t.sql} like ?`, bindings: [...t.bindings, pattern] };
      }
      default:
        if (!RANGE_OPS.has(op) || t.kind === 'boolean') throw refuseOperator(op, filter.field, at);
        return {
          sql: `${t.sql} ${SQL_OP.get(op)} ?`,
          bindings: [...t.bindings, coerce(t, filter.value, `${at}.value`)],
        };
    }
  }
}

// Module-level rather than per-call closures: a named closure made on every request is not free.
const refuseOperator = (op: string, field: string, at: string) =>
  badRequest(`Operator ${op} does not apply to ${field}`, `${at}.op`);

function keyKind(target: Target): KeyKind {
  if (target.kind === 'number' || target.kind === 'boolean' || target.kind === 'timestamp') return target.kind;
  return 'text';
}

function kindOf(field: FieldDef): Target['kind'] {
  if (field.type === 'number') return 'number';
  if (field.type === 'boolean') return 'boolean';
  if (field.type === 'date') return 'date';
  if (field.type === 'datetime') return 'datetime';
  return 'text';
}

/** Checks a filter value against the target's kind; datetimes become the stored UTC ISO form. */
function coerce(t: Target, v: unknown, at: string): string | number | boolean | Date {
  switch (t.kind) {
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v)) throw badRequest('must be a number', at);
      return v;
    case 'boolean':
      if (typeof v !== 'boolean') throw badRequest('must be true or false', at);
      return v;
    case 'date':
      if (!isCalendarDate(v)) throw badRequest(`must be a date YYYY-MM-DD in the years ${YEARS}`, at);
      return v;
    case 'datetime':
    case 'timestamp': {
      const ms = typeof v === 'string' ? Date.parse(v) : Number.NaN;
      if (Number.isNaN(ms)) throw badRequest('must be an ISO 8601 date-time', at);
      // PostgreSQL refuses timestamps before 4714 BC (22008); stored date-times have four-digit years.
      if (!inYearRange(ms)) throw badRequest(`must be a date-time in the years ${YEARS} (UTC)`, at);
      return t.kind === 'timestamp' ? new Date(ms) : new Date(ms).toISOString();
    }
    default:
      if (typeof v !== 'string') throw badRequest('must be a string', at);
      return v;
  }
}

/** Public simple filters (`?field=value` on GET /public/data-objects): text in, typed eq filter out. */
export function simpleFilterValue(cls: ClassRow, name: string, raw: string): unknown {
  const field = cls.fields.find((f) => f.name === name);
  if (field?.type === 'number') return Number.isFinite(Number(raw)) && raw.trim() !== '' ? Number(raw) : raw;
  if (field?.type === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : raw;
  return raw;
}
