import type { Db, Tx } from '../../../kernel/index.ts';
import type { MenuSource } from '../services/menu-node.ts';
import type { WebsitePathRow } from '../services/menus.ts';

/** Website paths (menu entries). */
export class WebsitePathStore {
  constructor(private readonly db: Db) {}

  list(websiteId: string | undefined, limit: number, offset: number): Promise<WebsitePathRow[]> {
    const q = this.db('content_website_paths')
      .select('*')
      .orderBy([{ column: 'website_id' }, { column: 'position' }, { column: 'label' }])
      .limit(limit)
      .offset(offset);
    if (websiteId) q.where({ website_id: websiteId });
    return q;
  }

  /**
   * What a website's menu is drawn from: its entries in order, and the published variants (every
   * locale) of the pages they link to. Two queries, kept per website (services/website-cache.ts).
   */
  async menuSource(websiteId: string): Promise<MenuSource> {
    const entries = await this.db('content_website_paths')
      .select('id', 'parent_id', 'label', 'path', 'page_id')
      .where({ website_id: websiteId })
      .orderBy(['position', 'label', 'id'])
      .limit(5000);
    const linked = entries.flatMap((e) => (e.page_id ? [e.page_id] : []));
    const variants: MenuSource['variants'] = new Map();
    if (linked.length === 0) return { entries, variants };
    const rows: Array<{ linked_id: string; id: string; locale: string; path: string }> = await this.db(
      'content_pages as l',
    )
      .join('content_pages as p', function () {
        this.on('p.translation_group_id', 'l.translation_group_id').andOn('p.website_id', 'l.website_id');
      })
      .select('l.id as linked_id', 'p.id', 'p.locale', 'p.path')
      .where({ 'l.website_id': websiteId, 'p.published': true, 'p.dynamic': false })
      .whereIn('l.id', [...new Set(linked)]);
    for (const row of rows) {
      const list = variants.get(row.linked_id) ?? [];
      list.push({ id: row.id, locale: row.locale, path: row.path });
      variants.set(row.linked_id, list);
    }
    return { entries, variants };
  }

  find(id: string, trx?: Tx): Promise<WebsitePathRow | undefined> {
    return (trx ?? this.db)('content_website_paths').where({ id }).first();
  }

  async websiteExists(websiteId: string, trx: Tx): Promise<boolean> {
    return !!(await trx('content_websites').where({ id: websiteId }).first('id'));
  }

  pageWebsite(pageId: string, trx: Tx): Promise<{ website_id: string } | undefined> {
    return trx('content_pages').where({ id: pageId }).first('website_id');
  }

  async insert(row: Omit<WebsitePathRow, 'id' | 'created_at' | 'updated_at'>, trx: Tx): Promise<WebsitePathRow> {
    const [created] = await trx('content_website_paths').insert(row).returning('*');
    return created;
  }

  async update(id: string, change: Record<string, unknown>, trx: Tx): Promise<WebsitePathRow> {
    const [row] = await trx('content_website_paths')
      .where({ id })
      .update({ ...change, updated_at: trx.fn.now() })
      .returning('*');
    return row;
  }

  async remove(id: string, trx: Tx): Promise<void> {
    await trx('content_website_paths').where({ id }).delete();
  }
}
