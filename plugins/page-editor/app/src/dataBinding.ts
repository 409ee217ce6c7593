import { type ApiAnswer, api, unwrap } from '../../../admin-ui/app/src/sdk/index.ts';
import type { ContentNode } from './tree.ts';

/**
 * A node's data binding to a class (the content plugin's `props.dataBinding`): the node's children
 * are the template of one item, repeated for each published object, `{{field}}` filled from it.
 */
export interface DataBinding {
  classId: string;
  filter?: BindingFilter[];
  orderBy?: string;
  dir?: 'asc' | 'desc';
  limit?: number;
  locale?: string;
}
export interface BindingFilter {
  field: string;
  op: string;
  value?: unknown;
}

export type DataClass = ApiAnswer<'/data-classes', 'get'>['classes'][number];
export type DataField = DataClass['fields'][number];

/** The classes the data plugin lists (`GET /data-classes`, `data_classes:read`). */
export async function listDataClasses(): Promise<DataClass[]> {
  return unwrap(await api.GET('/data-classes')).classes;
}

export const MAX_FILTERS = 5;
export const MAX_LIMIT = 100;
export const DEFAULT_LIMIT = 10;

export const OPERATORS: Array<{ value: string; label: string }> = [
  { value: 'eq', label: 'is' },
  { value: 'ne', label: 'is not' },
  { value: 'lt', label: 'is less than' },
  { value: 'lte', label: 'is at most' },
  { value: 'gt', label: 'is more than' },
  { value: 'gte', label: 'is at least' },
  { value: 'in', label: 'is one of (comma-separated)' },
  { value: 'contains', label: 'contains' },
  { value: 'startsWith', label: 'starts with' },
  { value: 'exists', label: 'has a value (true or false)' },
];

/** Field types the public query filters and sorts on (the data plugin's indexed fields). */
const INDEXED = new Set(['text', 'slug', 'number', 'boolean', 'date', 'datetime', 'select', 'asset', 'relation']);
export const filterableFields = (cls: DataClass) => cls.fields.filter((f) => INDEXED.has(f.type) || f.type === 'array');
export const sortableFields = (cls: DataClass) => cls.fields.filter((f) => INDEXED.has(f.type));

export function bindingOf(node: ContentNode): DataBinding | null {
  const value = node.props?.dataBinding;
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as DataBinding) : null;
}

/** The value a filter sends, typed by its field (the editor types text). */
export function typedValue(field: DataField | undefined, op: string, text: string): unknown {
  if (op === 'exists') return text.trim() !== 'false';
  if (op === 'in') return text.split(',').map((part) => typedValue(field, 'eq', part.trim()));
  if (field?.type === 'number' && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  if (field?.type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/** The text a filter's value is edited as. */
export const valueText = (value: unknown): string =>
  Array.isArray(value) ? value.map(String).join(', ') : value === undefined || value === null ? '' : String(value);

/** A first item for an empty bound block: a text line showing the class's first text field. */
export function starterTemplate(node: ContentNode, cls: DataClass): ContentNode[] {
  const field = cls.fields.find((f) => f.type === 'text' || f.type === 'slug') ?? cls.fields[0];
  const text = field ? `{{${field.name}}}` : '{{_key}}';
  if (node.type === 'ul' || node.type === 'ol') return [{ type: 'li', text }];
  if (node.type === 'tbody' || node.type === 'table') return [{ type: 'tr', children: [{ type: 'td', text }] }];
  return [{ type: 'p', text }];
}

/**
 * The bound node with a field's placeholder added to its template: a line of its own in a section,
 * a part of the first item in a list (`li`) or a cell of the first row in a table, so the HTML stays
 * a list or a table. An item's own text becomes its first part, so both stay editable.
 */
export function withField(node: ContentNode, name: string): ContentNode {
  const placeholder = `{{${name}}}`;
  const children = node.children ?? [];
  const item =
    node.type === 'ul' || node.type === 'ol' ? 'li' : node.type === 'table' || node.type === 'tbody' ? 'tr' : null;
  if (!item) return { ...node, children: [...children, { type: 'p', text: placeholder }] };
  const part = item === 'li' ? 'span' : 'td';
  const first = children[0];
  if (!first || first.type !== item)
    return { ...node, children: [{ type: item, children: [{ type: part, text: placeholder }] }, ...children] };
  const { text, ...rest } = first;
  const own = text !== undefined && !first.children?.length ? [{ type: part, text }] : (first.children ?? []);
  const added = { type: part, text: item === 'li' && own.length > 0 ? ` ${placeholder}` : placeholder };
  return { ...node, children: [{ ...rest, children: [...own, added] }, ...children.slice(1)] };
}
