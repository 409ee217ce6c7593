import type { ApiAnswer, ApiBody } from '../../admin-ui/app/src/sdk/index.ts';

/**
 * The data plugin's records as the dashboard sees them, taken from the routes' answer schemas in
 * `/openapi.json` (so a changed route breaks the type check), and what the screens know about field
 * types.
 */

export type DataClass = ApiAnswer<'/data-classes/{id}', 'get'>;
export type DataComponent = ApiAnswer<'/data-components/{id}', 'get'>;
/** Which classes use a component and how many objects they hold. */
export type ComponentUsage = ApiAnswer<'/data-components/{id}/usage', 'get'>;
/** One language row of an object. */
export type DataObject = ApiAnswer<'/data-objects/{id}', 'get'>;
export type FieldDef = DataClass['fields'][number];
export type FieldType = FieldDef['type'];
/** A workflow as the editor holds it (the body of `PUT /data-classes/:id/workflow`; a stored one fits it). */
export type Workflow = ApiBody<'/data-classes/{id}/workflow', 'put'>;
export type PreviewLink = ApiAnswer<'/data-objects/{id}/preview-links', 'get'>[number];

/** What each type holds, shown in the field editor's type picker (a record: a new type breaks the type check). */
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
/** Every field type, in the order of the type picker. */
export const FIELD_TYPES = Object.keys(FIELD_TYPE_LABELS) as FieldType[];
/** What a list's items may be (`of`). */
export const ITEM_TYPES: readonly FieldType[] = FIELD_TYPES.filter(
  (t) => t !== 'array' && t !== 'markdown' && t !== 'richtext',
);

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
