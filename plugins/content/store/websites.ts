import type { Db, Tx } from '../../../kernel/index.ts';
import type { PageRow } from './pages.ts';

export interface WebsiteRow {
  id: string;
  name: string;
  root_path: string;
  locales: string[];
  settings: Record<string, unknown>;
  theme: string | null;
  domains: string[];
  kind: string;
  site_key_hash: string | null;
  created_at: Date;
  updated_at: Date;
}

export type WebsiteWrite = Partial<Omit<WebsiteRow, 'id' | 'created_at' | 'updated_at'>>;

const json = (w: WebsiteWrite) => ({
  ...w,
  ...(w.locales ? { locales: JSON.stringify(w.locales) } : {}),
  ...(w.domains ? { domains: JSON.stringify(w.domains) } : {}),
  ...(w.settings ? { settings: JSON.stringify(w.settings) } : {}),
});

export class WebsiteStore {
  constructor(private readonly db: Db) {}

  list(trx?: Tx): Promise<WebsiteRow[]> {
    return (trx ?? this.db)('content_websites').select('*').orderBy('name').limit(10_000);
  }

  find(id: string, trx?: Tx): Promise<WebsiteRow | undefined> {
    return (trx ?? this.db)('content_websites').where({ id }).first();
  }

  findForUpdate(id: string, trx: Tx): Promise<WebsiteRow | undefined> {
    return trx('content_websites').where({ id }).forUpdate().first();
  }

  async insert(w: WebsiteWrite, trx: Tx): Promise<WebsiteRow> {
    const [row] = await trx('content_websites').insert(json(w)).returning('*');
    return row;
  }

  async update(id: string, w: WebsiteWrite, trx: Tx): Promise<WebsiteRow> {
    const [row] = await trx('content_websites')
      .where({ id })
      .update({ ...json(w), updated_at: trx.fn.now() })
      .returning('*');
    return row;
  }

  async remove(id: string, trx: Tx): Promise<void> {
    await trx('content_websites').where({ id }).delete();
  }

  /** Domains of `domains` that another website already has. */
  async domainsTaken(domains: string[], exceptId: string | null, trx: Tx): Promise<Set<string>> {
    const q = trx('content_websites').select('domains').whereRaw('domains \\?| ?', [domains]);
    if (exceptId) q.whereNot({ id: exceptId });
    return new Set(((await q) as Array<{ domains: string[] }>).flatMap((r) => r.domains));
  }

  /** What removal announcements need of each page of a website. */
  pagesOf(
    websiteId: string,
    trx: Tx,
  ): Promise<
    Array<Pick<PageRow, 'id' | 'website_id' | 'translation_group_id' | 'locale' | 'path' | 'title' | 'published'>>
  > {
    return trx('content_pages')
      .where({ website_id: websiteId })
      .select('id', 'website_id', 'translation_group_id', 'locale', 'path', 'title', 'published');
  }

  async removePageVersions(websiteId: string, trx: Tx): Promise<void> {
    await trx('content_versions')
      .where({ owner_type: 'page' })
      .whereIn('owner_id', trx('content_pages').select('id').where({ website_id: websiteId }))
      .delete();
  }

  /** Inputs of the PWA generation: the active theme's colours and the most recently changed published paths. */
  async pwaInputs(
    websiteId: string,
    locale: string,
    limit: number,
    trx: Tx,
  ): Promise<{ colors: Record<string, string>; paths: string[] }> {
    const theme = await trx('content_themes').where({ website_id: websiteId, is_default: true }).first('colors');
    const pages: Array<{ path: string }> = await trx('content_pages')
      .select('path')
      .where({ website_id: websiteId, published: true, dynamic: false, locale })
      .orderBy('updated_at', 'desc')
      .limit(limit);
    return { colors: (theme?.colors ?? {}) as Record<string, string>, paths: pages.map((p) => p.path) };
  }
}
