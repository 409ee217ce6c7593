import type { Db, Tx } from '../../../kernel/index.ts';

/** Rows of one website as a bundle carries them (the bundles plugin's registry `websiteBundleParts`). */
export const BUNDLE_COLUMNS = {
  content_pages: [
    'id',
    'locale',
    'translation_group_id',
    'path',
    'dynamic',
    'data_class',
    'title',
    'content',
    'seo',
    'in_sitemap',
    'indexable',
    'published',
    'kind',
    'thumbnail',
  ],
  content_snippets: ['id', 'name', 'content', 'locked', 'thumbnail'],
  content_layouts: ['id', 'name', 'regions', 'slots', 'path_patterns', 'locale', 'is_default'],
  content_website_paths: ['id', 'parent_id', 'label', 'path', 'page_id', 'position'],
  content_themes: ['id', 'name', 'colors', 'fonts', 'custom_styles', 'is_default'],
} as const;
export type BundleTable = keyof typeof BUNDLE_COLUMNS;

const JSON_COLUMNS = new Set(['content', 'seo', 'regions', 'slots', 'path_patterns', 'colors', 'fonts']);

export class ContentBundleStore {
  constructor(private readonly db: Db) {}

  website(id: string) {
    return this.db('content_websites')
      .where({ id })
      .first('id', 'name', 'root_path', 'locales', 'settings', 'theme', 'domains', 'kind');
  }

  websiteAt(rootPath: string, trx?: Tx) {
    return (trx ?? this.db)('content_websites').where({ root_path: rootPath }).first('id');
  }

  rows(table: BundleTable, websiteId: string): Promise<Record<string, unknown>[]> {
    const q = this.db(table).where({ website_id: websiteId }).select(BUNDLE_COLUMNS[table]).orderBy('created_at');
    if (table === 'content_website_paths') void q.orderBy('position');
    return q;
  }

  async insertWebsite(trx: Tx, row: Record<string, unknown>): Promise<void> {
    await trx('content_websites').insert({
      ...row,
      locales: JSON.stringify(row.locales ?? ['en']),
      settings: JSON.stringify(row.settings ?? {}),
      domains: JSON.stringify(row.domains ?? []),
    });
  }

  async insert(trx: Tx, table: BundleTable, row: Record<string, unknown>): Promise<void> {
    const values: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(row)) values[k] = JSON_COLUMNS.has(k) ? JSON.stringify(v ?? {}) : v;
    await trx(table).insert(values);
  }
}
