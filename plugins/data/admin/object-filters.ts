import type { ObjectQuery } from './data-api.ts';
import { type DataClass, INDEXED_TYPES } from './model.ts';

/** The object list's state, all of it in the URL (`?class=article&field=title&op=contains&value=x`). */
export interface ObjectListState {
  className: string;
  locale: string;
  published: string;
  field: string;
  op: string;
  value: string;
  /** `title` or `-title` (descending); empty: newest first. */
  sort: string;
  /** The keyset cursors of the pages walked so far, `.`-separated (base64url has no `.`). */
  pages: string;
}

export const STATE_NAMES = ['className', 'locale', 'published', 'field', 'op', 'value', 'sort', 'pages'] as const;
/** The URL's parameter of each state member (the class is `class`). */
export const PARAM: Record<keyof ObjectListState, string> = {
  className: 'class',
  locale: 'locale',
  published: 'published',
  field: 'field',
  op: 'op',
  value: 'value',
  sort: 'sort',
  pages: 'pages',
};

export const BUILT_IN_FIELDS = [
  { value: 'key', label: 'Key', type: 'text' },
  { value: 'createdAt', label: 'Created', type: 'datetime' },
  { value: 'updatedAt', label: 'Updated', type: 'datetime' },
] as const;

export const OPERATORS = [
  { value: 'eq', label: 'is' },
  { value: 'ne', label: 'is not' },
  { value: 'contains', label: 'contains' },
  { value: 'startsWith', label: 'starts with' },
  { value: 'lt', label: 'less than' },
  { value: 'gt', label: 'greater than' },
  { value: 'exists', label: 'has a value (yes/no)' },
];

/** The fields of a class a query can filter and sort on, with their types. */
export function filterableFields(cls: DataClass | undefined): { value: string; label: string; type: string }[] {
  const own = (cls?.fields ?? [])
    .filter((f) => INDEXED_TYPES.has(f.type))
    .map((f) => ({ value: f.name, label: f.label || f.name, type: f.type }));
  return [...own, ...BUILT_IN_FIELDS];
}

/** The filter's value in the type its field needs (`12` for numbers, `true` for yes/no fields). */
export function filterValue(type: string, op: string, text: string): unknown {
  if (op === 'exists') return text !== 'false';
  if (type === 'number') {
    const n = Number(text);
    return text.trim() !== '' && Number.isFinite(n) ? n : text;
  }
  if (type === 'boolean') return text === 'true';
  return text;
}

/** The body of `POST /data-objects/query` for the list's state: one page, no count. */
export function queryOf(cls: DataClass | undefined, s: ObjectListState, limit: number): ObjectQuery {
  const filters: NonNullable<ObjectQuery['filters']> = [];
  if (s.published === 'yes' || s.published === 'no')
    filters.push({ field: 'published', op: 'eq', value: s.published === 'yes' });
  const field = filterableFields(cls).find((f) => f.value === s.field);
  if (field && s.op && (s.value !== '' || s.op === 'exists'))
    filters.push({ field: field.value, op: s.op, value: filterValue(field.type, s.op, s.value) });
  const body: ObjectQuery = { className: s.className, filters, limit, includeTotal: false };
  if (s.locale) body.locale = s.locale;
  if (s.sort) body.orderBy = [{ field: s.sort.replace(/^-/, ''), direction: s.sort.startsWith('-') ? 'desc' : 'asc' }];
  const cursors = s.pages ? s.pages.split('.') : [];
  if (cursors.length > 0) body.after = cursors[cursors.length - 1];
  return body;
}
