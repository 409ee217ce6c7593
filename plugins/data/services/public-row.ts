/**
 * One object row of the public read path (store/public-read-sql.ts) as the driver gives it (uuids,
 * texts and the formatted timestamps as strings, `published` as a boolean, attributes as jsonb's
 * text). The answer is written from it directly: `attributes` is parsed once (JSON.parse) so
 * `JSON.stringify` gives the same bytes the DTO mapping gave (jsonb's text form puts spaces after `:`
 * and `,`).
 */
export interface PublicRow {
  id: string;
  class_id: string;
  translation_group_id: string | null;
  locale: string | null;
  key: string | null;
  parent_id: string | null;
  path: string | null;
  published: boolean;
  workflow_state: string | null;
  /** Null on a row past the page's byte cap (store/public-read-sql.ts). */
  attributes_text: string | null;
  created_text: string;
  updated_text: string;
  [key: `k${number}`]: string | null;
}

/** The object as the public API answers it (the key order of `toObjectDto`, model.ts). */
export function publicObject(row: PublicRow, className: string): Record<string, unknown> {
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
    attributes: JSON.parse(row.attributes_text ?? '{}'),
    createdAt: row.created_text,
    updatedAt: row.updated_text,
  };
}

