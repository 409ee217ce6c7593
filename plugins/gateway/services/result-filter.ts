import type { BindingResultFilter } from '../ports.ts';

const MAX_PATH_SEGMENTS = 20;

/**
 * A binding's filter applied to an upstream JSON answer: `path` selects a value (dot path, numeric
 * segments index arrays), `pick` keeps fields of each row (or of the object), `rename` renames them,
 * `limit` keeps the first rows of an array. Lookups use own properties only (`__proto__`, `constructor`
 * find nothing).
 */
export function applyResultFilter(value: unknown, filter: BindingResultFilter | null | undefined): unknown {
  if (!filter) return value;
  let current = value;
  if (filter.path) {
    for (const segment of filter.path.split('.').slice(0, MAX_PATH_SEGMENTS)) {
      if (current !== null && typeof current === 'object' && Object.hasOwn(current, segment))
        current = (current as Record<string, unknown>)[segment];
      else return null;
    }
  }
  if (Array.isArray(current) && filter.limit !== undefined)
    current = current.slice(0, Math.max(0, Math.min(1000, filter.limit)));
  const shape = (row: unknown): unknown => {
    if (row === null || typeof row !== 'object' || Array.isArray(row)) return row;
    const source = row as Record<string, unknown>;
    const keys = filter.pick ? filter.pick.filter((k) => Object.hasOwn(source, k)) : Object.keys(source);
    const out: Record<string, unknown> = {};
    for (const k of keys) {
      const renamed = filter.rename && Object.hasOwn(filter.rename, k) ? filter.rename[k]! : k;
      Object.defineProperty(out, renamed, { value: source[k], enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
  if (!filter.pick && !filter.rename) return current;
  return Array.isArray(current) ? current.map(shape) : shape(current);
}
