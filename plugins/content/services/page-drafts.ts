import type { PageRow } from '../store/pages.ts';
import type { ContentNode } from './node-tree.ts';
import type { PageInput } from './pages.ts';
import type { StaffRow, WorkingCopyKind } from './working-copy.ts';

/** A page as staff reads show it: the working copy's fields over the live row, and who saved it. */
export type StaffPageRow = StaffRow<PageRow>;

/**
 * What a page's working copy holds (column: API name); the rest (publication, locale, thumbnail) is
 * live only. `dynamic` follows the path.
 */
export const PAGE_COPY: WorkingCopyKind = {
  owner: 'page',
  label: 'page',
  columns: {
    title: 'title',
    content: 'content',
    seo: 'seo',
    path: 'path',
    dynamic: 'dynamic',
    data_class: 'dataClass',
    in_sitemap: 'inSitemap',
    indexable: 'indexable',
    kind: 'kind',
  },
  derived: ['dynamic'],
  treeFields: ['content'],
  trees: (fields) => ({ '': fields.content as ContentNode }),
};

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
