import { badRequest } from '../../../kernel/index.ts';

/**
 * Keyset cursors of the public list and query (`after`): the sort values and the id of the last
 * object of a page, with the order they belong to, as base64url JSON. Opaque to clients; checked
 * here value by value against the sort's kinds, so a forged cursor answers 400 naming `after`, never a
 * database error. A cursor of another order (other `orderBy`) is refused the same way.
 */
export type KeyKind = 'text' | 'number' | 'boolean' | 'timestamp' | 'uuid';

export interface KeyTerm {
  /** SQL of the sort term (a column or an indexed expression). */
  sql: string;
  direction: 'asc' | 'desc';
  kind: KeyKind;
  /** Whether the term can be null (attribute expressions, `key`). */
  nullable: boolean;
}

export const MAX_CURSOR_LENGTH = 4_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const NUMERIC = /^-?\d{1,1000}(\.\d{1,1000})?$/;
const CURSOR_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export function encodeCursor(order: string, values: ReadonlyArray<string | null>): string {
  return Buffer.from(JSON.stringify({ o: order, v: values })).toString('base64url');
}

/** The cursor's values, one per term, or 400 naming `after`. */
export function decodeCursor(raw: string, order: string, terms: readonly KeyTerm[]): Array<string | null> {
  const refuse = (why: string) => badRequest(`after is not a cursor of this query (${why})`, 'after');
  if (raw.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(raw)) throw refuse('malformed');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw refuse('malformed');
  }
  const { o, v } = (parsed ?? {}) as { o?: unknown; v?: unknown };
  if (o !== order) throw refuse('another order');
  if (!Array.isArray(v) || v.length !== terms.length) throw refuse('malformed');
  return v.map((value, i) => {
    const term = terms[i];
    if (value === null && term.nullable) return null;
    if (typeof value !== 'string' || !fits(term.kind, value)) throw refuse('malformed');
    return value;
  });
}

function fits(kind: KeyKind, value: string): boolean {
  switch (kind) {
    case 'uuid':
      return UUID.test(value);
    case 'number':
      return NUMERIC.test(value);
    case 'boolean':
      return value === 'true' || value === 'false';
    case 'timestamp':
      return CURSOR_TIMESTAMP.test(value) && !Number.isNaN(Date.parse(value.slice(0, 23) + 'Z'));
    default:
      // Text values of PostgreSQL: no NUL, well-formed (JSON.parse of the cursor already decoded it).
      return !value.includes('\u0000') && value.length <= MAX_CURSOR_LENGTH && value.isWellFormed();
  }
}

/**
 * WHERE fragment "after this row" in the given order (PostgreSQL's defaults: nulls last ascending,
 * first descending), with `param(value)` returning the placeholder of a bound value. When every term
 * is non-null and goes one way (the default newest-first order, sorts on built-ins) it is one row
 * comparison, which an index in that order answers directly; otherwise the expansion
 * `t1 > v1 or (t1 = v1 and t2 > v2) or ...`.
 */
export function afterCondition(
  terms: readonly KeyTerm[],
  values: ReadonlyArray<string | null>,
  param: (value: string) => string,
): string {
  const direction = terms[0].direction;
  if (terms.every((t) => !t.nullable && t.direction === direction)) {
    return `(${terms.map((t) => t.sql).join(', ')}) ${direction === 'asc' ? '>' : '<'} (${values.map((v) => param(v as string)).join(', ')})`;
  }
  const alternatives: string[] = [];
  for (let i = 0; i < terms.length; i++) {
    // `beyond` first: when nothing follows, no parameter of this alternative may be numbered (an unused
    // parameter has no type PostgreSQL could infer).
    const beyond = beyondValue(terms[i], values[i], param);
    if (beyond === null) continue;
    const equal = terms
      .slice(0, i)
      .map((t, j) => (values[j] === null ? `${t.sql} is null` : `${t.sql} = ${param(values[j] as string)}`));
    alternatives.push(`(${[...equal, beyond].join(' and ')})`);
  }
  return alternatives.length > 0 ? `(${alternatives.join(' or ')})` : 'false';
}

function beyondValue(term: KeyTerm, value: string | null, param: (value: string) => string): string | null {
  if (term.direction === 'asc') {
    if (value === null) return null; // nulls come last: nothing follows a null
    return term.nullable ? `(${term.sql} > ${param(value)} or ${term.sql} is null)` : `${term.sql} > ${param(value)}`;
  }
  if (value === null) return `${term.sql} is not null`; // nulls come first: every value follows
  return `${term.sql} < ${param(value)}`;
}
