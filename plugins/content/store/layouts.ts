import type { Db, Tx } from '../../../kernel/index.ts';
import type { ContentNode } from '../services/node-tree.ts';
import { nextUpdatedAt } from './edit-time.ts';

export interface LayoutSlot {
  className?: string;
  style?: string;
}
export interface LayoutRow {
  id: string;
  website_id: string;
  name: string;
  regions: Partial<Record<'header' | 'aside' | 'main' | 'footer' | 'notFound', ContentNode | null>>;
  slots: Record<string, LayoutSlot>;
  path_patterns: string[];
  locale: string | null;
  is_default: boolean;
  created_at: Date;
  updated_at: Date;
}
export type LayoutWrite = Partial<Omit<LayoutRow, 'id' | 'website_id' | 'created_at' | 'updated_at'>>;

const json = (w: LayoutWrite) => ({
  ...w,
  ...(w.regions ? { regions: JSON.stringify(w.regions) } : {}),
  ...(w.slots ? { slots: JSON.stringify(w.slots) } : {}),
  ...(w.path_patterns ? { path_patterns: JSON.stringify(w.path_patterns) } : {}),
});

/** Website layout templates (`/cms-one/websites/:websiteId/templates`). */
export class LayoutStore {
  constructor(private readonly db: Db) {}

  list(websiteId: string, trx?: Tx): Promise<LayoutRow[]> {
    return (trx ?? this.db)('content_layouts').where({ website_id: websiteId }).orderBy('name').limit(1000);
  }

  find(websiteId: string, id: string, trx?: Tx): Promise<LayoutRow | undefined> {
    return (trx ?? this.db)('content_layouts').where({ website_id: websiteId, id }).first();
  }

  /** The row, locked until the transaction ends (a write checks its `If-Match` against it). */
  findForUpdate(websiteId: string, id: string, trx: Tx): Promise<LayoutRow | undefined> {
    return trx('content_layouts').where({ website_id: websiteId, id }).forUpdate().first();
  }

  async insert(websiteId: string, w: LayoutWrite, trx: Tx): Promise<LayoutRow> {
    const [row] = await trx('content_layouts')
      .insert({ ...json(w), website_id: websiteId })
      .returning('*');
    return row;
  }

  async update(websiteId: string, id: string, w: LayoutWrite, trx: Tx): Promise<LayoutRow | undefined> {
    const [row] = await trx('content_layouts')
      .where({ website_id: websiteId, id })
      .update({ ...json(w), updated_at: nextUpdatedAt(trx) })
      .returning('*');
    return row;
  }

  async clearDefault(websiteId: string, exceptId: string | null, trx: Tx): Promise<void> {
    const q = trx('content_layouts').where({ website_id: websiteId, is_default: true });
    if (exceptId) q.whereNot({ id: exceptId });
    await q.update({ is_default: false });
  }

  async remove(websiteId: string, id: string, trx: Tx): Promise<boolean> {
    return (await trx('content_layouts').where({ website_id: websiteId, id }).delete()) > 0;
  }

  async websiteExists(websiteId: string): Promise<boolean> {
    return !!(await this.db('content_websites').where({ id: websiteId }).first('id'));
  }
}
