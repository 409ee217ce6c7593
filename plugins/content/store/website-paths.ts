import type { Db, Tx } from '../../../kernel/index.ts';
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
