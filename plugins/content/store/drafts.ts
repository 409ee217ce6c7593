import type { Db, Tx } from '../../../kernel/index.ts';
import { nextUpdatedAt } from './edit-time.ts';

/** What a working copy belongs to. */
export type DraftOwner = 'page' | 'snippet' | 'template' | 'layout';

/** A working copy (`content_drafts`): the record's fields its next publish makes live (column names). */
export interface DraftRow {
  owner_type: DraftOwner;
  owner_id: string;
  fields: Record<string, unknown>;
  updated_by: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Working copies of pages, snippets, templates and layouts. */
export class DraftStore {
  constructor(private readonly db: Db) {}

  async find(owner: DraftOwner, id: string, trx?: Tx, lock?: 'update'): Promise<DraftRow | null> {
    const q = (trx ?? this.db)<DraftRow>('content_drafts').where({ owner_type: owner, owner_id: id }).first();
    if (lock === 'update') q.forUpdate();
    return (await q) ?? null;
  }

  /** The working copies of the given records (absent ones left out). */
  async findMany(owner: DraftOwner, ids: readonly string[]): Promise<DraftRow[]> {
    if (ids.length === 0) return [];
    return this.db<DraftRow>('content_drafts')
      .where({ owner_type: owner })
      .whereIn('owner_id', [...ids]);
  }

  /** Stores (or replaces) a working copy; its `updated_at` moves on like a record's (edit-time.ts). */
  async save(owner: DraftOwner, id: string, fields: Record<string, unknown>, updatedBy: string | null, trx: Tx) {
    const values = { fields: JSON.stringify(fields), updated_by: updatedBy };
    const [row] = await trx<DraftRow>('content_drafts')
      .insert({ owner_type: owner, owner_id: id, ...values, updated_at: trx.raw('clock_timestamp()') } as never)
      .onConflict(['owner_type', 'owner_id'])
      .merge({ ...values, updated_at: nextUpdatedAt(trx, 'content_drafts') } as never)
      .returning('*');
    return row as DraftRow;
  }

  async remove(owner: DraftOwner, id: string, trx: Tx): Promise<boolean> {
    return (await trx('content_drafts').where({ owner_type: owner, owner_id: id }).delete()) > 0;
  }

  /**
   * Every working copy, newest first (a page of at most `limit`), without its fields, with the live
   * record's label (title or name) and website (null for shared snippets and templates).
   */
  list(filter: {
    ownerType?: DraftOwner;
    limit: number;
    offset: number;
  }): Promise<Array<Omit<DraftRow, 'fields'> & { label: string | null; website_id: string | null }>> {
    const q = this.db('content_drafts as d')
      .leftJoin('content_pages as p', (j) =>
        j.on('d.owner_type', '=', this.db.raw("'page'")).andOn('p.id', 'd.owner_id'),
      )
      .leftJoin('content_snippets as s', (j) =>
        j.on('d.owner_type', '=', this.db.raw("'snippet'")).andOn('s.id', 'd.owner_id'),
      )
      .leftJoin('content_templates as t', (j) =>
        j.on('d.owner_type', '=', this.db.raw("'template'")).andOn('t.id', 'd.owner_id'),
      )
      .leftJoin('content_layouts as l', (j) =>
        j.on('d.owner_type', '=', this.db.raw("'layout'")).andOn('l.id', 'd.owner_id'),
      )
      .select(
        'd.owner_type',
        'd.owner_id',
        'd.updated_by',
        'd.created_at',
        'd.updated_at',
        this.db.raw('coalesce(p.title, s.name, t.name, l.name) as label'),
        this.db.raw('coalesce(p.website_id, s.website_id, l.website_id) as website_id'),
      )
      .orderBy([
        { column: 'd.updated_at', order: 'desc' },
        { column: 'd.owner_id', order: 'desc' },
      ])
      .limit(filter.limit)
      .offset(filter.offset);
    if (filter.ownerType) q.where({ 'd.owner_type': filter.ownerType });
    return q;
  }
}
