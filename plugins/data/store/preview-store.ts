import type { Db } from '../../../kernel/index.ts';
import type { ObjectRow } from '../model.ts';
import { REGISTRY, type ObjectLocator } from './object-registry.ts';

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
  constructor(private readonly deps: { db: Db; locator?: ObjectLocator }) {}

  private get locator(): ObjectLocator {
    return this.deps.locator ?? REGISTRY;
  }

  /** Existence from the registry, which holds exactly the stored objects. */
  async objectExists(id: string): Promise<boolean> {
    return (await this.deps.db('data_object_registry').where({ id }).first('id')) !== undefined;
  }

  async insert(link: {
    token: string;
    objectId: string;
    expiresAt: Date;
    createdBy: string | null;
    now: Date;
  }): Promise<PreviewLinkRow> {
    const [row] = await this.deps
      .db('data_preview_links')
      .insert({
        token: link.token,
        object_id: link.objectId,
        expires_at: link.expiresAt,
        created_by: link.createdBy,
        created_at: link.now,
      })
      .returning('*');
    return row;
  }

  listForObject(objectId: string): Promise<PreviewLinkRow[]> {
    return this.deps
      .db('data_preview_links')
      .where({ object_id: objectId })
      .orderBy([{ column: 'created_at', order: 'desc' }, 'token']);
  }

  async find(token: string): Promise<PreviewLinkRow | null> {
    return (await this.deps.db('data_preview_links').where({ token }).first()) ?? null;
  }

  /** active -> revoked; a link already revoked keeps its first revocation time. */
  async revoke(token: string, now: Date): Promise<boolean> {
    const updated = await this.deps
      .db('data_preview_links')
      .where({ token })
      .whereNull('revoked_at')
      .update({ revoked_at: now });
    return updated > 0;
  }

  /** revoked or expired -> removed, in one statement so a link cannot be re-activated in between. */
  async removeInactive(token: string, now: Date): Promise<boolean> {
    const removed = await this.deps
      .db('data_preview_links')
      .where({ token })
      .andWhere((q) => q.whereNotNull('revoked_at').orWhere('expires_at', '<=', now))
      .delete();
    return removed > 0;
  }

  /**
   * Counts a view of an active link (one atomic increment; a revoked, expired or unknown token
   * yields nothing) and returns its object with the class name. The object is read with its class
   * named, so only that class's partition is planned and read; an object deleted in between answers
   * nothing, as its link would be gone with it.
   */
  async view(token: string, now: Date): Promise<(ObjectRow & { class_name: string }) | null> {
    const hit: Array<{ object_id: string }> = await this.deps
      .db('data_preview_links')
      .where({ token })
      .whereNull('revoked_at')
      .andWhere((q) => q.whereNull('expires_at').orWhere('expires_at', '>', now))
      .update({ view_count: this.deps.db.raw('view_count + 1'), last_viewed_at: now })
      .returning('object_id');
    if (hit.length === 0) return null;
    const id = hit[0].object_id;
    const classId = (await this.locator.classesOf(this.deps.db, [id])).get(id);
    if (!classId) return null;
    const result = await this.deps.db.raw(
      `select ${OBJECT_COLUMNS}, c.name as class_name
         from data_objects o join data_classes c on c.id = o.class_id
        where o.class_id = ? and o.id = ?`,
      [classId, id],
    );
    return result.rows[0] ?? null;
  }
}
