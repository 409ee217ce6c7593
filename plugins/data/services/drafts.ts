import { type Db, type Tx, forbidden, inTransaction, notFound } from '../../../kernel/index.ts';
import { toObjectDto, type ClassRow, type ObjectDto, type ObjectRow } from '../model.ts';
import { findClassById } from '../store/class-store.ts';
import { type DraftRow, deleteDraft, findDraft, findDrafts, listDrafts } from '../store/draft-store.ts';
import { findObjectById } from '../store/object-store.ts';
import type { WriteContext } from './actor.ts';
import { isUuid } from './attributes.ts';
import type { DataServiceDeps } from './deps.ts';
import type { ObjectService } from './object-service.ts';
import { differingFields } from './working-copies.ts';

/** A staff view of an object: the working copy over the live row when there is one, and who saved it. */
export function toStaffDto(row: ObjectRow, className: string, draft: DraftRow | null): ObjectDto {
  const live = toObjectDto(row, className);
  if (!draft) return live;
  return {
    ...live,
    key: draft.key,
    parentId: draft.parent_id,
    path: draft.path,
    attributes: draft.attributes ?? {},
    draft: { updatedAt: new Date(draft.updated_at).toISOString(), updatedBy: draft.updated_by },
  };
}

/** One field (or `key`, `parent`, `path`) in which the working copy differs from live. */
export interface DraftFieldDiff {
  field: string;
  live: unknown;
  draft: unknown;
}

export interface PendingChange {
  objectId: string;
  class: { id: string; name: string };
  locale: string;
  published: boolean;
  updatedAt: string;
  updatedBy: string | null;
}

const fieldValue = (version: Pick<DraftRow, 'key' | 'parent_id' | 'path' | 'attributes'>, field: string) => {
  if (field === 'key') return version.key;
  if (field === 'parent') return version.parent_id;
  if (field === 'path') return version.path;
  return Object.hasOwn(version.attributes, field) ? version.attributes[field] : null;
};

/**
 * Publishing, discarding and comparing working copies. Promoting runs the working copy through the
 * ordinary live update: unique claims, the shared-field sync of the translation group, path moves and
 * `object.updated` with the changed field names, all in the promote's transaction.
 */
export class DraftService {
  constructor(
    private readonly deps: DataServiceDeps,
    private readonly objects: ObjectService,
  ) {}

  /** GET /data-objects/:id for staff: the working copy unless `version` is `live`. */
  async staffView(id: string, version: 'live' | 'draft'): Promise<ObjectDto> {
    const row = isUuid(id) ? await findObjectById(this.deps.kernel.db, id, undefined, this.deps.locator) : null;
    if (!row) throw notFound('Object not found', 'OBJECT_NOT_FOUND');
    const cls = await this.deps.schema.classById(row.class_id);
    const draft = version === 'live' ? null : await findDraft(this.deps.kernel.db, row.id);
    return toStaffDto(row, cls?.name ?? '', draft);
  }

  /** The working copies of `rows` by object id (one query). */
  async draftsOf(q: Db | Tx, rows: readonly ObjectRow[]): Promise<Map<string, DraftRow>> {
    const drafts = await findDrafts(
      q,
      rows.map((r) => r.id),
    );
    return new Map(drafts.map((d) => [d.object_id, d]));
  }

  async diff(id: string): Promise<{ changed: string[]; fields: DraftFieldDiff[] }> {
    const { row, cls, draft } = await this.load(this.deps.kernel.db, id);
    const changed = differingFields(cls, row, draft);
    return {
      changed,
      fields: changed.map((field) => ({ field, live: fieldValue(row, field), draft: fieldValue(draft, field) })),
    };
  }

  /** POST /data-objects/:id/publish-draft: 403 without objects:publish, 404 without a working copy. */
  async publish(ctx: WriteContext, id: string): Promise<ObjectDto> {
    if (!this.objects.mayPublish(ctx)) throw forbidden('Publishing needs objects:publish', 'PUBLISH_FORBIDDEN');
    return inTransaction(this.deps.kernel.db, ctx.trx, async (trx) => {
      const { row, cls, draft } = await this.load(trx, id, 'update');
      const live = await this.promote(trx, ctx, row, cls, draft);
      return toObjectDto(live, cls.name);
    });
  }

  /**
   * Makes `draft` the live content of `row` (locked by the caller) and removes it; audited as
   * `data_object.publish_draft` with the changed fields.
   */
  async promote(trx: Tx, ctx: WriteContext, row: ObjectRow, cls: ClassRow, draft: DraftRow): Promise<ObjectRow> {
    await deleteDraft(trx, row.id);
    // The working copy replaces the attributes: what it no longer has is cleared.
    const cleared = Object.fromEntries(Object.keys(row.attributes).map((name) => [name, null]));
    const { row: live, changed } = await this.objects.updateLive(trx, ctx, row, cls, {
      attributes: { ...cleared, ...draft.attributes },
      key: draft.key,
      parentId: draft.parent_id,
    });
    await this.deps.kernel.audit.record(
      ctx,
      {
        action: 'data_object.publish_draft',
        targetType: 'data_object',
        targetId: row.id,
        targetLabel: `${cls.name} ${row.key ?? row.id} (${row.locale})`,
        after: { changed, draftUpdatedBy: draft.updated_by },
      },
      trx,
    );
    return live;
  }

  /** DELETE /data-objects/:id/draft: the live row stays; 404 without a working copy. */
  async discard(ctx: WriteContext, id: string): Promise<void> {
    await inTransaction(this.deps.kernel.db, ctx.trx, async (trx) => {
      const { row, cls, draft } = await this.load(trx, id, 'update');
      await deleteDraft(trx, row.id);
      await this.deps.kernel.audit.record(
        ctx,
        {
          action: 'data_object.discard_draft',
          targetType: 'data_object',
          targetId: row.id,
          targetLabel: `${cls.name} ${row.key ?? row.id} (${row.locale})`,
          before: { changed: differingFields(cls, row, draft), draftUpdatedBy: draft.updated_by },
        },
        trx,
      );
    });
  }

  /** Every object with a working copy, newest first. */
  async pending(opts: { classId?: string; limit: number; offset: number }): Promise<PendingChange[]> {
    const rows = await listDrafts(this.deps.kernel.db, opts);
    return rows.map((d) => ({
      objectId: d.object_id,
      class: { id: d.class_id, name: d.class_name },
      locale: d.locale,
      published: d.published,
      updatedAt: new Date(d.updated_at).toISOString(),
      updatedBy: d.updated_by,
    }));
  }

  private async load(
    trx: Db | Tx,
    id: string,
    lock?: 'update',
  ): Promise<{ row: ObjectRow; cls: ClassRow; draft: DraftRow }> {
    const row = isUuid(id) ? await findObjectById(trx, id, lock) : null;
    if (!row) throw notFound('Object not found', 'OBJECT_NOT_FOUND');
    const draft = await findDraft(trx, row.id, lock);
    if (!draft) throw notFound('This object has no working copy', 'DRAFT_NOT_FOUND');
    const cls = (await findClassById(trx, row.class_id, lock && 'share'))!;
    return { row, cls, draft };
  }
}
