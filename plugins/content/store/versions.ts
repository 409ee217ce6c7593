import type { Db, Tx } from '../../../kernel/index.ts';
import type { ContentNode } from '../services/node-tree.ts';

export interface VersionRow {
  id: string;
  owner_type: 'page' | 'snippet';
  owner_id: string;
  title: string | null;
  content: ContentNode;
  created_by: string | null;
  created_at: Date;
}

/** Prior states of page and snippet content; the most recent `keep` per owner survive a snapshot. */
export class VersionStore {
  constructor(private readonly db: Db) {}

  async snapshot(v: Omit<VersionRow, 'id' | 'created_at'>, keep: number, trx: Tx): Promise<void> {
    await trx('content_versions').insert({
      ...v,
      content: JSON.stringify(v.content),
      created_at: trx.raw('clock_timestamp()'),
    });
    await trx('content_versions')
      .where({ owner_type: v.owner_type, owner_id: v.owner_id })
      .whereNotIn(
        'id',
        trx('content_versions')
          .select('id')
          .where({ owner_type: v.owner_type, owner_id: v.owner_id })
          .orderBy('created_at', 'desc')
          .limit(keep),
      )
      .delete();
  }

  list(ownerType: string, ownerId: string): Promise<Array<Omit<VersionRow, 'content'>>> {
    return this.db('content_versions')
      .select('id', 'owner_type', 'owner_id', 'title', 'created_by', 'created_at')
      .where({ owner_type: ownerType, owner_id: ownerId })
      .orderBy('created_at', 'desc')
      .limit(50);
  }

  find(ownerType: string, ownerId: string, id: string, trx?: Tx): Promise<VersionRow | undefined> {
    return (trx ?? this.db)('content_versions').where({ owner_type: ownerType, owner_id: ownerId, id }).first();
  }

  async removeOwner(ownerType: string, ownerId: string, trx: Tx): Promise<void> {
    await trx('content_versions').where({ owner_type: ownerType, owner_id: ownerId }).delete();
  }
}
