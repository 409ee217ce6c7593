/** Row and wire shapes shared by this plugin's stores, services and routes. */
import type { Workflow } from './services/workflow-definition.ts';

export interface ObjectRow {
  id: string;
  class_id: string;
  translation_group_id: string;
  locale: string;
  key: string | null;
  parent_id: string | null;
  path: string;
  published: boolean;
  workflow_state: string | null;
  attributes: Record<string, unknown>;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A data object as every route returns it. */
export interface ObjectDto {
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
  /** Staff reads of an object with a working copy: the values above are the working copy's. */
  draft?: { updatedAt: string; updatedBy: string | null };
}

export function toObjectDto(row: ObjectRow, className: string): ObjectDto {
  return {
    id: row.id,
    class: { id: row.class_id, name: className },
    classId: row.class_id,
    translationGroupId: row.translation_group_id,
    locale: row.locale,
    key: row.key,
    parentId: row.parent_id,
    path: row.path,
    published: row.published,
    workflowState: row.workflow_state,
    attributes: row.attributes ?? {},
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

/** The field types a class or component may declare. */
export const FIELD_TYPES = [
  'text',
  'richtext',
  'markdown',
  'json',
  'array',
  'slug',
  'relation',
  'number',
  'boolean',
  'date',
  'datetime',
  'select',
  'asset',
  'component',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** One field of a class or component, as stored in `fields` (jsonb). */
export interface FieldDef {
  name: string;
  type: FieldType;
  label?: string;
  required?: boolean;
  unique?: boolean;
  /** true: each language row has its own value; false (default): shared by the translation group. */
  localized?: boolean;
  /** Allowed values of a `select`. */
  options?: string[];
  validation?: { min?: number; max?: number; minLength?: number; maxLength?: number; pattern?: string };
  /** Target class of a `relation`. */
  relation?: { class: string };
  /** Component name of a `component` field. */
  component?: string;
  /** Item type of an `array`. */
  of?: FieldType;
}

export interface ClassRow {
  id: string;
  name: string;
  label: string;
  fields: FieldDef[];
  view_config: Record<string, unknown> | null;
  retention_days: number | null;
  workflow: Workflow | null;
  created_at: Date;
  updated_at: Date;
}

export interface ClassDto {
  id: string;
  name: string;
  label: string;
  fields: FieldDef[];
  viewConfig: Record<string, unknown> | null;
  retentionDays: number | null;
  workflow: Workflow | null;
  createdAt: string;
  updatedAt: string;
}

export function toClassDto(row: ClassRow): ClassDto {
  return {
    id: row.id,
    name: row.name,
    label: row.label,
    fields: row.fields ?? [],
    viewConfig: row.view_config ?? null,
    retentionDays: row.retention_days ?? null,
    workflow: row.workflow ?? null,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

export interface ComponentRow {
  id: string;
  name: string;
  label: string;
  fields: FieldDef[];
  created_at: Date;
  updated_at: Date;
}

export interface ComponentDto {
  id: string;
  name: string;
  label: string;
  fields: FieldDef[];
  createdAt: string;
  updatedAt: string;
}

export function toComponentDto(row: ComponentRow): ComponentDto {
  return {
    id: row.id,
    name: row.name,
    label: row.label,
    fields: row.fields ?? [],
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
