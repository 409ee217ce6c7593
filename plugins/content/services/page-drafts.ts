import type { DraftRow } from '../store/drafts.ts';
import type { PageRow } from '../store/pages.ts';
import type { PageInput } from './pages.ts';

/** A page as staff reads show it: the working copy's fields over the live row, and who saved it. */
export type StaffPageRow = PageRow & { draft?: { updatedAt: Date; updatedBy: string | null } };

/** The columns a page's working copy holds; the rest (publication, locale, thumbnail) is live only. */
const DRAFT_COLUMNS = [
  'title',
  'content',
  'seo',
  'path',
  'dynamic',
  'data_class',
  'in_sitemap',
  'indexable',
  'kind',
] as const;
/** The same fields as the API names them (diff answers, the audit's `changed`). */
const API_NAMES: Record<(typeof DRAFT_COLUMNS)[number], string> = {
  title: 'title',
  content: 'content',
  seo: 'seo',
  path: 'path',
  dynamic: 'dynamic',
  data_class: 'dataClass',
  in_sitemap: 'inSitemap',
  indexable: 'indexable',
  kind: 'kind',
};
const COLUMN_OF = new Map(Object.entries(API_NAMES).map(([column, name]) => [name, column]));

/** A save's input split: what a working copy takes and what always goes live. */
export function splitPageInput(input: PageInput & { thumbnail?: string | null }): {
  live: PageInput & { thumbnail?: string | null };
  draft: PageInput;
} {
  const { published, locale, thumbnail, websiteId, translationGroupId, ...draft } = input;
  const live: PageInput & { thumbnail?: string | null } = {};
  if (published !== undefined) live.published = published;
  if (locale !== undefined) live.locale = locale;
  if (thumbnail !== undefined) live.thumbnail = thumbnail;
  if (websiteId !== undefined) live.websiteId = websiteId;
  if (translationGroupId !== undefined) live.translationGroupId = translationGroupId;
  return { live, draft };
}

/** The working-copy fields of a row (column names). */
export function pageDraftFields(row: Partial<PageRow>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const column of DRAFT_COLUMNS) if (row[column] !== undefined) out[column] = row[column];
  return out;
}

/** A save's input that makes a working copy's fields live. */
export function pageInputOf(fields: Record<string, unknown>): PageInput {
  return {
    title: fields.title as string,
    content: fields.content,
    seo: fields.seo as PageInput['seo'],
    path: fields.path as string,
    dataClass: (fields.data_class as string | null) ?? null,
    inSitemap: fields.in_sitemap as boolean,
    indexable: fields.indexable as boolean,
    kind: (fields.kind as string | null) ?? null,
  };
}

/** JSON with object keys sorted, so values read back from jsonb compare equal to those sent. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

export const sameFields = (a: Record<string, unknown>, b: Record<string, unknown>) => stableJson(a) === stableJson(b);

/** API names of the fields in which the working copy differs from the live row. */
export function changedPageFields(live: PageRow, draft: DraftRow): string[] {
  const fields = pageDraftFields(live);
  return DRAFT_COLUMNS.filter(
    (column) => column !== 'dynamic' && stableJson(fields[column] ?? null) !== stableJson(draft.fields[column] ?? null),
  ).map((column) => API_NAMES[column]);
}

/** A field's value by its API name. */
export function pageFieldValue(row: PageRow, field: string): unknown {
  const column = COLUMN_OF.get(field);
  return column ? (row as unknown as Record<string, unknown>)[column] : undefined;
}

/** The staff view: the working copy's fields and time over the live row (its ETag is the copy's). */
export function withPageDraft(row: PageRow, draft: DraftRow | null): StaffPageRow {
  if (!draft) return row;
  return {
    ...row,
    ...(draft.fields as Partial<PageRow>),
    updated_at: draft.updated_at,
    draft: { updatedAt: draft.updated_at, updatedBy: draft.updated_by },
  };
}
