/**
 * The data plugin's records as the dashboard sees them (the API's answers; the routes declare no
 * response schema, so the shapes are written here, from plugins/data/README.md) and what the screens
 * know about field types.
 */

export const FIELD_TYPES = [
  'text',
  'markdown',
  'richtext',
  'slug',
  'number',
  'boolean',
  'date',
  'datetime',
  'select',
  'asset',
  'relation',
  'json',
  'array',
  'component',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** What each type holds, shown in the field editor's type picker. */
export const FIELD_TYPE_LABELS: Record<FieldType, string> = {
  text: 'Text (one line, up to 600 characters)',
  markdown: 'Markdown',
  richtext: 'Rich text (HTML)',
  slug: 'Slug (lowercase-with-hyphens)',
  number: 'Number',
  boolean: 'Yes / no',
  date: 'Date',
  datetime: 'Date and time (UTC)',
  select: 'Choice from a list',
  asset: 'Asset (id, uuid or path)',
  relation: 'Relation to an object of a class',
  json: 'JSON',
  array: 'List',
  component: 'Component (a group of fields)',
};

/** Types a field may be unique on (the API refuses the others). */
export const UNIQUE_TYPES: ReadonlySet<string> = new Set([
  'text',
  'slug',
  'number',
  'date',
  'datetime',
  'select',
  'asset',
  'relation',
]);
/** Types a query can filter and sort on (indexed). */
export const INDEXED_TYPES: ReadonlySet<string> = new Set([
  'text',
  'slug',
  'number',
  'boolean',
  'date',
  'datetime',
  'select',
  'asset',
  'relation',
]);
/** Types with a length rule and a pattern. */
export const TEXT_TYPES: ReadonlySet<string> = new Set(['text', 'markdown', 'richtext', 'slug']);
/** What a list's items may be (`of`). */
export const ITEM_TYPES: readonly FieldType[] = FIELD_TYPES.filter(
  (t) => t !== 'array' && t !== 'markdown' && t !== 'richtext',
);

export interface FieldValidation {
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  min?: number;
  max?: number;
}

export interface FieldDef {
  name: string;
  type: FieldType;
  label?: string;
  required?: boolean;
  unique?: boolean;
  localized?: boolean;
  options?: string[];
  validation?: FieldValidation;
  relation?: { class: string };
  component?: string;
  of?: string;
}

export interface DataClass {
  id: string;
  name: string;
  label: string;
  fields: FieldDef[];
  viewConfig: Record<string, unknown> | null;
  retentionDays: number | null;
  workflow: Workflow | null;
  createdAt?: string;
  updatedAt?: string;
}

export interface DataComponent {
  id: string;
  name: string;
  label: string;
  fields: FieldDef[];
}

export interface DataObject {
  id: string;
  class: { id: string; name: string };
  classId: string;
  translationGroupId: string;
  locale: string;
  key: string | null;
  parentId: string | null;
  path: string;
  published: boolean;
  workflowState: string | null;
  attributes: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export interface Workflow {
  initialPlace?: string;
  places: { name: string; label?: string }[];
  transitions: { name: string; label?: string; from: string[]; to: string; permissions: string[] }[];
}

export interface PreviewLink {
  token: string;
  url: string;
  state: 'active' | 'revoked' | 'expired';
  expiresAt: string | null;
  viewCount: number;
  lastViewedAt: string | null;
  createdAt: string;
}

/** The title of an object in lists: its first non-empty text field, else its key, else its id. */
export function titleOf(cls: Pick<DataClass, 'fields'> | undefined, object: DataObject): string {
  for (const f of cls?.fields ?? []) {
    const v = object.attributes[f.name];
    if ((f.type === 'text' || f.type === 'slug') && typeof v === 'string' && v) return v;
  }
  return object.key ?? object.id;
}

/** Query keys: the plugin id first. */
export const keys = {
  classes: ['data', 'classes'] as const,
  class: (id: string) => ['data', 'classes', id] as const,
  components: ['data', 'components'] as const,
  objects: ['data', 'objects'] as const,
  object: (id: string) => ['data', 'objects', id] as const,
};
