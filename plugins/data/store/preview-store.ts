import type { Db } from '../../../kernel/index.ts';
import type { ObjectRow } from '../model.ts';

export interface PreviewLinkRow {
  token: string;
  object_id: string;
  expires_at: Date | null;
  revoked_at: Date | null;
  view_count: number;
  last_viewed_at: Date | null;
  created_by: string | null;
  created_at: Date;
}

const OBJECT_COLUMNS =
  'o.id, o.class_id, o.translation_group_id, o.locale, o.key, o.parent_id, o.path, o.published, o.workflow_state, o.attributes, o.created_by, o.created_at, o.updated_at';

/**
 * Preview links (`data_preview_links`). "Now" always comes from the caller's clock, never from the
 * database, so expiry follows the process clock (and a test's manual clock).
 */
export class PreviewStore {
  constructor(private readonly deps: { db: Db }) {}

  async objectExists(id: string): Promise<boolean> {
    return (await this.deps.db('data_objects').where({ id }).first('id')) !== undefined;
  }

  async insert(link: { token: string; objectId: string; expiresAt: Date; createdBy: string | null; now: Date }): Promise<PreviewLinkRow> {
    const [row] = await this.deps.db('data_preview_links')
      .insert({ token: link.token, object_id: link.objectId, expires_at: link.expiresAt, created_by: link.createdBy, created_at: link.now })
      .returning('*');
    return row;
  }

  listForObject(objectId: string): Promise<PreviewLinkRow[]> {
    return this.deps.db('data_preview_links').where({ object_id: objectId }).orderBy([{ column: 'created_at', order: 'desc' }, 'token']);
  }

  async find(token: string): Promise<PreviewLinkRow | null> {
    return (await this.deps.db('data_preview_links').where({ token }).first()) ?? null;
  }

  /** active -> revoked; a link already revoked keeps its first revocation time. */
  async revoke(token: string, now: Date): Promise<boolean> {
    const updated = await this.deps.db('data_preview_links').where({ token }).whereNull('revoked_at').update({ revoked_at: now });
    return updated > 0;
  }

  /** revoked or expired -> removed, in one statement so a link cannot be re-activated in between. */
  async removeInactive(token: string, now: Date): Promise<boolean> {
    const removed = await this.deps.db('data_preview_links')
      .where({ token })
      .andWhere((q) => q.whereNotNull('revoked_at').orWhere('expires_at', '<=', now))
      .delete();
    return removed > 0;
  }

  /**
   * Counts a view of an active link and returns its object with the class name, in one statement:
   * the increment is atomic, and a revoked, expired or unknown token yields nothing.
   */
  async view(token: string, now: Date): Promise<(ObjectRow & { class_name: string }) | null> {
    const result = await this.deps.db.raw(
      `with hit as (
         update data_preview_links set view_count = view_count + 1, last_viewed_at = ?
          where token = ? and revoked_at is null and (expires_at is null or expires_at > ?)
         returning object_id)
       select ${OBJECT_COLUMNS}, c.name as class_name
         from hit join data_objects o on o.id = hit.object_id join data_classes c on c.id = o.class_id`,
      [now, token, now],
    );
    return result.rows[0] ?? null;
  }
}
