/** Row and wire shapes shared by this plugin's stores, services and routes. */

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
