import { inTransaction, notFound, type Actor, type Tx } from '../../../kernel/index.ts';
import type { ContentDeps } from './deps.ts';
import type { PageService } from './pages.ts';

export interface StagedPageRow {
  id: string;
  website_id: string;
  locale: string;
  path: string;
  title: string;
  content: unknown;
  seo: Record<string, unknown>;
  source: string | null;
  state: 'staged' | 'promoted' | 'discarded';
  page_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export const toStagedDto = (r: StagedPageRow, withContent = true) => ({
  id: r.id, websiteId: r.website_id, locale: r.locale, path: r.path, title: r.title, ...(withContent ? { content: r.content } : {}),
  seo: r.seo, source: r.source, state: r.state, pageId: r.page_id, createdAt: r.created_at, updatedAt: r.updated_at,
});

/**
 * Migrated pages awaiting review (imports write them). Promoting makes a draft page (or a new version
 * of the page already at that website, locale and path) through the page service, so the tree is
 * validated and the change announced; discarding keeps the row as `discarded`.
 */
export class StagedPageService {
  constructor(private readonly deps: { kernel: ContentDeps; pages: PageService }) {}

  list(websiteId: string | undefined, limit: number, offset: number): Promise<StagedPageRow[]> {
    const q = this.deps.kernel.db('content_staged_pages').select('*').where({ state: 'staged' }).orderBy('created_at').limit(limit).offset(offset);
    if (websiteId) q.where({ website_id: websiteId });
    return q;
  }

  async get(id: string, trx?: Tx): Promise<StagedPageRow> {
    const row = await (trx ?? this.deps.kernel.db)('content_staged_pages').where({ id, state: 'staged' }).first();
    if (!row) throw notFound('Staged page not found');
    return row;
  }

  private async promoteRow(actor: Actor, row: StagedPageRow, trx: Tx): Promise<string> {
    const existing = await trx('content_pages').where({ website_id: row.website_id, locale: row.locale, path: row.path }).first('id');
    const page = existing
      ? await this.deps.pages.update(actor, existing.id, { title: row.title, content: row.content, seo: row.seo }, { trx })
      : await this.deps.pages.create(actor, { websiteId: row.website_id, locale: row.locale, path: row.path, title: row.title, content: row.content, seo: row.seo }, { trx });
    await trx('content_staged_pages').where({ id: row.id }).update({ state: 'promoted', page_id: page.id, updated_at: trx.fn.now() });
    return page.id;
  }

  async promote(actor: Actor, id: string): Promise<{ id: string; pageId: string }> {
    return inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const row = await trx('content_staged_pages').where({ id, state: 'staged' }).forUpdate().first();
      if (!row) throw notFound('Staged page not found');
      return { id, pageId: await this.promoteRow(actor, row, trx) };
    });
  }

  /** Every staged page (of one website when given), all or nothing. */
  async promoteAll(actor: Actor, websiteId: string | undefined): Promise<{ promoted: Array<{ id: string; pageId: string }> }> {
    return inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const q = trx('content_staged_pages').where({ state: 'staged' }).orderBy('created_at').limit(5000).forUpdate();
      if (websiteId) q.where({ website_id: websiteId });
      const rows: StagedPageRow[] = await q;
      const promoted = [];
      for (const row of rows) promoted.push({ id: row.id, pageId: await this.promoteRow(actor, row, trx) });
      return { promoted };
    });
  }

  async discard(id: string): Promise<void> {
    const n = await this.deps.kernel.db('content_staged_pages').where({ id, state: 'staged' }).update({ state: 'discarded', updated_at: this.deps.kernel.db.fn.now() });
    if (!n) throw notFound('Staged page not found');
  }
}
