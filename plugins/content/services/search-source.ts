import type { PluginContributions, RecordChange, Tx } from '../../../kernel/index.ts';
import type { PageRow, PageStore } from '../store/pages.ts';
import { textOf } from './node-tree.ts';
import type { SiteDirectory } from './site-directory.ts';

// The search plugin's types, reached through the kernel's registry augmentation (no import of its files).
type SearchSource = PluginContributions['searchSources'];
type SearchDocument = Awaited<ReturnType<SearchSource['documentsFor']>>[number];

/**
 * Pages for the search plugin: a published, indexable page is a public document; drafts and
 * non-indexable pages stay in the editors' index (`public: false`). Text comes from the node tree.
 */
export function pageSearchSource(deps: { pages: PageStore; directory: SiteDirectory }): SearchSource {
  const toDocument = async (row: PageRow): Promise<SearchDocument> => {
    const site = await deps.directory.byId(row.website_id);
    const seo = row.seo as { description?: unknown };
    return {
      sourceType: 'page',
      sourceId: row.id,
      websiteId: row.website_id,
      locale: row.locale,
      title: row.title,
      body: [typeof seo.description === 'string' ? seo.description : '', textOf(row.content)].filter(Boolean).join(' '),
      url: `${site?.rootPath ?? ''}${row.path === '/' ? '/' : row.path}`,
      public: row.published && row.indexable,
      meta: { path: row.path, kind: row.kind, published: row.published },
      updatedAt: row.updated_at,
    };
  };
  return {
    recordType: 'page',
    async documentsFor(change: RecordChange, trx: Tx) {
      const row = await deps.pages.find(change.recordId, trx);
      return row ? [await toDocument(row)] : [];
    },
    async *allDocuments(trx: Tx) {
      for await (const rows of deps.pages.batches(trx)) yield Promise.all(rows.map(toDocument));
    },
  };
}
