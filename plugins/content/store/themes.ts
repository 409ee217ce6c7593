import type { Db, Tx } from '../../../kernel/index.ts';
import type { ThemeRow } from '../services/themes.ts';

/** Themes: the global catalog (website null) and the per-website catalogs. */
export class ThemeStore {
  constructor(private readonly db: Db) {}

  list(scope: string | null | 'all'): Promise<ThemeRow[]> {
    const q = this.db('content_themes')
      .select('*')
      .orderBy([{ column: 'website_id' }, { column: 'name' }])
      .limit(5000);
    if (scope === 'all') q.whereNotNull('website_id');
    else if (scope === null) q.whereNull('website_id');
    else q.where({ website_id: scope });
    return q;
  }

  find(id: string, websiteId: string | null, trx?: Tx): Promise<ThemeRow | undefined> {
    return (trx ?? this.db)('content_themes')
      .where({ id })
      .andWhere((q) => (websiteId === null ? q.whereNull('website_id') : q.where({ website_id: websiteId })))
      .first();
  }

  websiteName(websiteId: string, trx?: Tx): Promise<{ name: string } | undefined> {
    return (trx ?? this.db)('content_websites').where({ id: websiteId }).first('name');
  }

  async insert(columns: Record<string, unknown>, websiteId: string | null, trx: Tx): Promise<ThemeRow> {
    const [row] = await trx('content_themes')
      .insert({ ...columns, website_id: websiteId })
      .returning('*');
    return row;
  }

  async update(id: string, columns: Record<string, unknown>, trx: Tx): Promise<ThemeRow> {
    const [row] = await trx('content_themes')
      .where({ id })
      .update({ ...columns, updated_at: trx.fn.now() })
      .returning('*');
    return row;
  }

  async remove(id: string, trx: Tx): Promise<void> {
    await trx('content_themes').where({ id }).delete();
  }

  async active(websiteId: string, trx?: Tx): Promise<ThemeRow | undefined> {
    return (trx ?? this.db)('content_themes').where({ website_id: websiteId, is_default: true }).first();
  }

  /** Moves the website's one default to `themeId` (the partial unique index allows one at a time). */
  async makeDefault(websiteId: string, themeId: string, trx: Tx): Promise<ThemeRow> {
    await trx('content_themes').where({ website_id: websiteId, is_default: true }).update({ is_default: false });
    const [row] = await trx('content_themes')
      .where({ id: themeId })
      .update({ is_default: true, updated_at: trx.fn.now() })
      .returning('*');
    return row;
  }
}
