import type { Db, Tx } from '../../../kernel/index.ts';

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
    const [row] = await trx('content_websites').where({ id }).update({ ...json(w), updated_at: trx.fn.now() }).returning('*');
    return row;
  }

  async remove(id: string, trx: Tx): Promise<void> {
    await trx('content_websites').where({ id }).delete();
  }
}
