import type { ListQuery } from './list-page';

/**
 * Filters, sorts and pages a small list the API answers whole, by a `ListPage` query (its filters
 * and sort come from the URL). `text` names the fields the free-text filter `q` looks in; every other
 * filter value must equal the record's field of that name (`'yes'`/`'no'` match booleans).
 */
export function pageInBrowser<T>(
  records: readonly T[],
  query: ListQuery,
  opts: { text?: readonly (keyof T & string)[] } = {},
): { records: T[]; total: number } {
  const field = (r: T, name: string): unknown =>
    Object.hasOwn(r as object, name) ? (r as Record<string, unknown>)[name] : undefined;
  const text = (query.filters.q ?? '').trim().toLowerCase();
  let rows = records.filter((r) => {
    if (
      text &&
      !(opts.text ?? []).some((f) =>
        String(field(r, f) ?? '')
          .toLowerCase()
          .includes(text),
      )
    )
      return false;
    for (const [name, wanted] of Object.entries(query.filters)) {
      if (name === 'q' || !wanted) continue;
      const value = field(r, name);
      const actual = typeof value === 'boolean' ? (value ? 'yes' : 'no') : String(value ?? '');
      if (actual !== wanted) return false;
    }
    return true;
  });
  if (query.sort) {
    const { column, direction } = query.sort;
    rows = [...rows].sort((a, b) => {
      const x = field(a, column) ?? '';
      const y = field(b, column) ?? '';
      const c =
        typeof x === 'number' && typeof y === 'number'
          ? x - y
          : String(x).localeCompare(String(y), undefined, { numeric: true });
      return direction === 'desc' ? -c : c;
    });
  }
  const from = (query.page - 1) * query.pageSize;
  return { records: rows.slice(from, from + query.pageSize), total: rows.length };
}
