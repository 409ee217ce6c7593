import { badRequest, isHttpError } from '../../../kernel/index.ts';

export const MAX_FILTERS = 5;
const OPS = new Set(['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'contains', 'startsWith', 'exists']);

export interface ParsedFilter {
  field: string;
  op: string;
  /** The value as sent (text), and as the typed guess tried first. */
  text: string;
  value: unknown;
}

/** A typed guess for a filter value sent as text: numbers and booleans first, text otherwise. */
function guess(text: string): unknown {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text) && Number.isFinite(Number(text))) return Number(text);
  return text;
}

/** `field:op:value` (value may contain `:`; `in` takes a comma-separated list; `exists` true/false). */
export function parseFilters(raw: readonly string[]): ParsedFilter[] {
  if (raw.length > MAX_FILTERS) throw badRequest(`At most ${MAX_FILTERS} filters`, 'filter');
  return raw.map((text, i) => {
    const first = text.indexOf(':');
    const second = first < 0 ? -1 : text.indexOf(':', first + 1);
    if (first <= 0 || second < 0) throw badRequest('A filter is field:op:value', `filter.${i}`);
    const field = text.slice(0, first);
    const op = text.slice(first + 1, second);
    const valueText = text.slice(second + 1);
    if (!OPS.has(op)) throw badRequest(`Unknown operator "${op}"; use one of ${[...OPS].join(', ')}`, `filter.${i}`);
    const value = op === 'in' ? valueText.split(',').map(guess) : guess(valueText);
    return { field, op, text: valueText, value };
  });
}

/** The filter as sent, with its value left as text (or a list of texts for `in`). */
export function asText(f: ParsedFilter): ParsedFilter {
  return { ...f, value: f.op === 'in' ? f.text.split(',') : f.text };
}

/**
 * Runs a query whose filter values were guessed from text. The data service checks each value
 * against its field's type; when a guessed number or boolean is refused for a text field (`42` in a
 * postal code), that filter is retried as the text that was sent. At most one retry per filter.
 */
export async function withTypedFilters<T>(
  filters: ParsedFilter[],
  run: (filters: ParsedFilter[]) => Promise<T>,
): Promise<T> {
  let current = filters;
  for (let attempt = 0; ; attempt++) {
    try {
      return await run(current);
    } catch (err) {
      const at = isHttpError(err) && err.statusCode === 400 ? /^filters\.(\d+)\.value$/.exec(err.field ?? '') : null;
      const index = at ? Number(at[1]) : -1;
      const filter = current[index];
      if (!filter || attempt >= filters.length || JSON.stringify(filter.value) === JSON.stringify(asText(filter).value))
        throw renamed(err);
      current = current.map((f, i) => (i === index ? asText(f) : f));
    }
  }
}

/** The data service names its own input (`filters.0.field`); the client API's parameter is `filter`. */
function renamed(err: unknown): unknown {
  if (!isHttpError(err) || err.statusCode !== 400 || !err.field) return err;
  const filter = /^filters\.(\d+)/.exec(err.field);
  if (filter) return badRequest(err.message, `filter.${filter[1]}`, err.code);
  if (err.field.startsWith('orderBy')) return badRequest(err.message, 'orderBy', err.code);
  return err;
}
