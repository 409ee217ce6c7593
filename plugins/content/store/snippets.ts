import type { Db, Tx } from '../../../kernel/index.ts';
import type { ContentNode } from '../services/node-tree.ts';
import { nextUpdatedAt } from './edit-time.ts';

export interface SnippetRow {
  id: string;
  name: string;
  website_id: string | null;
  content: ContentNode;
  locked: boolean;
  thumbnail: string | null;
  created_at: Date;
  updated_at: Date;
}

export type SnippetWrite = Partial<Omit<SnippetRow, 'id' | 'created_at' | 'updated_at'>>;

const json = (w: SnippetWrite) => ({ ...w, ...(w.content ? { content: JSON.stringify(w.content) } : {}) });

export class SnippetStore {
  constructor(private readonly db: Db) {}

  list(filter: { websiteId?: string; limit: number; offset: number }): Promise<SnippetRow[]> {
    const q = this.db('content_snippets')
      .select('id', 'name', 'website_id', 'locked', 'thumbnail', 'created_at', 'updated_at')
      .orderBy('name')
      .limit(filter.limit)
      .offset(filter.offset);
    if (filter.websiteId) q.where({ website_id: filter.websiteId });
    return q;
  }

  find(id: string, trx?: Tx): Promise<SnippetRow | undefined> {
    return (trx ?? this.db)('content_snippets').where({ id }).first();
  }

  findForUpdate(id: string, trx: Tx): Promise<SnippetRow | undefined> {
    return trx('content_snippets').where({ id }).forUpdate().first();
  }

  async insert(w: SnippetWrite, trx: Tx): Promise<SnippetRow> {
    const [row] = await trx('content_snippets').insert(json(w)).returning('*');
    return row;
  }

  async update(id: string, w: SnippetWrite, trx: Tx): Promise<SnippetRow> {
    const [row] = await trx('content_snippets')
      .where({ id })
      .update({ ...json(w), updated_at: nextUpdatedAt(trx) })
      .returning('*');
    return row;
  }

  async remove(id: string, trx: Tx): Promise<boolean> {
    return (await trx('content_snippets').where({ id }).delete()) > 0;
  }
}
