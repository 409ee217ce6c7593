import { inTransaction, notFound, type Actor, type Tx } from '../../../kernel/index.ts';
import type { StagedPageStore } from '../store/staged-pages.ts';
import type { ContentDeps } from './deps.ts';
import type { PageService } from './pages.ts';
import { mayPublish } from './working-copy.ts';

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
  /** Goes live when promoted by someone who may publish (an import's published state). */
  publish: boolean;
  page_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export const toStagedDto = (r: StagedPageRow, withContent = true) => ({
  id: r.id,
  websiteId: r.website_id,
  locale: r.locale,
  path: r.path,
  title: r.title,
  ...(withContent ? { content: r.content } : {}),
  seo: r.seo,
  source: r.source,
  state: r.state,
  pageId: r.page_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/**
 * Migrated pages awaiting review (imports write them). Promoting makes a draft page (or a new version
 * of the page already at that website, locale and path) through the page service, so the tree is
 * validated and the change announced; discarding keeps the row as `discarded`.
 */
export class StagedPageService {
  constructor(private readonly deps: { kernel: ContentDeps; pages: PageService; store: StagedPageStore }) {}

  list(websiteId: string | undefined, limit: number, offset: number): Promise<StagedPageRow[]> {
    return this.deps.store.list(websiteId, limit, offset);
  }

  async get(id: string, trx?: Tx): Promise<StagedPageRow> {
    const row = await this.deps.store.find(id, trx);
    if (!row) throw notFound('Staged page not found');
    return row;
  }

  private async promoteRow(actor: Actor, row: StagedPageRow, trx: Tx): Promise<string> {
    const existing = await this.deps.store.existingPage(row, trx);
    const live = row.publish && mayPublish(this.deps.kernel, actor) ? { published: true } : {};
    const page = existing
      ? await this.deps.pages.update(
          actor,
          existing.id,
          { title: row.title, content: row.content, seo: row.seo, ...live },
          { trx },
        )
      : await this.deps.pages.create(
          actor,
          {
            websiteId: row.website_id,
            locale: row.locale,
            path: row.path,
            title: row.title,
            content: row.content,
            seo: row.seo,
            ...live,
          },
          { trx },
        );
    await this.deps.store.markPromoted(row.id, page.id, trx);
    return page.id;
  }

  async promote(actor: Actor, id: string): Promise<{ id: string; pageId: string }> {
    return inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const row = await this.deps.store.findForUpdate(id, trx);
      if (!row) throw notFound('Staged page not found');
      return { id, pageId: await this.promoteRow(actor, row, trx) };
    });
  }

  /** Every staged page (of one website when given), all or nothing. */
  async promoteAll(
    actor: Actor,
    websiteId: string | undefined,
  ): Promise<{ promoted: Array<{ id: string; pageId: string }> }> {
    return inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const promoted = [];
      for (const row of await this.deps.store.allForUpdate(websiteId, trx))
        promoted.push({ id: row.id, pageId: await this.promoteRow(actor, row, trx) });
      return { promoted };
    });
  }

  /**
   * Staged pages of one import source (`source` starting with `prefix`), these ids only when given,
   * all or nothing in the caller's transaction. An id that is not a staged page of the source is a 404.
   */
  async promoteBySource(
    actor: Actor,
    prefix: string,
    ids: readonly string[] | undefined,
    trx: Tx,
  ): Promise<Array<{ id: string; pageId: string; path: string }>> {
    const rows = await this.deps.store.bySourceForUpdate(prefix, ids, trx);
    if (ids) {
      const missing = ids.find((id) => !rows.some((r) => r.id === id));
      if (missing !== undefined) throw notFound(`Staged page ${missing} is not a staged page of this source`);
    }
    const out = [];
    for (const row of rows) out.push({ id: row.id, pageId: await this.promoteRow(actor, row, trx), path: row.path });
    return out;
  }

  async discard(id: string): Promise<void> {
    if (!(await this.deps.store.markDiscarded(id))) throw notFound('Staged page not found');
  }
}
