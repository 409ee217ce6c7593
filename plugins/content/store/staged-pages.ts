import type { Db, Tx } from '../../../kernel/index.ts';
import type { StagedPageRow } from '../services/staged-pages.ts';

/** Migrated pages awaiting review. */
export class StagedPageStore {
  constructor(private readonly db: Db) {}

  list(websiteId: string | undefined, limit: number, offset: number): Promise<StagedPageRow[]> {
    const q = this.db('content_staged_pages')
      .select('*')
      .where({ state: 'staged' })
      .orderBy('created_at')
      .limit(limit)
      .offset(offset);
    if (websiteId) q.where({ website_id: websiteId });
    return q;
  }

  find(id: string, trx?: Tx): Promise<StagedPageRow | undefined> {
    return (trx ?? this.db)('content_staged_pages').where({ id, state: 'staged' }).first();
  }

  findForUpdate(id: string, trx: Tx): Promise<StagedPageRow | undefined> {
    return trx('content_staged_pages').where({ id, state: 'staged' }).forUpdate().first();
  }

  allForUpdate(websiteId: string | undefined, trx: Tx): Promise<StagedPageRow[]> {
    const q = trx('content_staged_pages').where({ state: 'staged' }).orderBy('created_at').limit(5000).forUpdate();
    if (websiteId) q.where({ website_id: websiteId });
    return q;
  }

  /** The page already at the staged page's website, locale and path. */
  existingPage(row: StagedPageRow, trx: Tx): Promise<{ id: string } | undefined> {
    return trx('content_pages').where({ website_id: row.website_id, locale: row.locale, path: row.path }).first('id');
  }

  async markPromoted(id: string, pageId: string, trx: Tx): Promise<void> {
    await trx('content_staged_pages')
      .where({ id })
      .update({ state: 'promoted', page_id: pageId, updated_at: trx.fn.now() });
  }

  /**
   * Writes an imported page awaiting review: the row of the same `source` still staged is updated
   * (an import run again), else a new row is added.
   */
  async upsertBySource(
    row: Pick<StagedPageRow, 'website_id' | 'locale' | 'path' | 'title' | 'content' | 'seo' | 'publish'> & {
      source: string;
    },
    trx: Tx,
  ): Promise<{ id: string; created: boolean }> {
    const values = { ...row, content: JSON.stringify(row.content), seo: JSON.stringify(row.seo) };
    const existing = await trx('content_staged_pages')
      .where({ source: row.source, state: 'staged' })
      .forUpdate()
      .first('id');
    if (existing) {
      await trx('content_staged_pages')
        .where({ id: existing.id })
        .update({ ...values, updated_at: trx.fn.now() });
      return { id: existing.id, created: false };
    }
    const [added] = await trx('content_staged_pages').insert(values).returning('id');
    return { id: added.id, created: true };
  }

  /** Staged rows whose `source` starts with `prefix` (of one import source), these ids only when given. */
  bySourceForUpdate(prefix: string, ids: readonly string[] | undefined, trx: Tx): Promise<StagedPageRow[]> {
    const q = trx('content_staged_pages')
      .where({ state: 'staged' })
      .whereRaw("source LIKE ? ESCAPE '\\'", [`${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`])
      .orderBy('created_at')
      .limit(5000)
      .forUpdate();
    if (ids) q.whereIn('id', ids);
    return q;
  }

  async markDiscarded(id: string): Promise<boolean> {
    return (
      (await this.db('content_staged_pages')
        .where({ id, state: 'staged' })
        .update({ state: 'discarded', updated_at: this.db.fn.now() })) > 0
    );
  }
}
