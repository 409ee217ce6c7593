import type { Tx } from '../../../kernel/index.ts';
import type { ClassRow, ObjectRow } from '../model.ts';
import { type DraftRow, deleteDraft, findDraft, saveDraft } from '../store/draft-store.ts';
import { findObjectById } from '../store/object-store.ts';
import type { WriteContext } from './actor.ts';
import type { DataServiceDeps } from './deps.ts';
import type { ObjectService, UpdateObjectInput, WriteGuard } from './object-service.ts';
import { changedAttributes, checkKey, pathOf, sharedFields, withSharedFrom } from './object-rules.ts';

/** The content a working copy holds: what its promote makes live. */
export type DraftContent = Pick<DraftRow, 'key' | 'parent_id' | 'path' | 'attributes'>;

/** The names (attributes, then key, parent, path) in which two versions of an object differ. */
export function differingFields(cls: ClassRow, live: DraftContent, draft: DraftContent): string[] {
  const names = changedAttributes(cls.fields, live.attributes, draft.attributes);
  if (live.key !== draft.key) names.push('key');
  if (live.parent_id !== draft.parent_id) names.push('parent');
  if (live.path !== draft.path) names.push('path');
  return names;
}

/**
 * Writes to working copies. Nothing here announces a record change: a working copy is not what the
 * site, the public API, search or subscribers see, so storing one sends nothing outbound and leaves
 * every read cache as it is. Unique values are claimed when the copy is promoted (a clash answers 409
 * then), and shared fields reach the other languages at promote too.
 */
export class WorkingCopies {
  constructor(
    private readonly deps: DataServiceDeps,
    private readonly objects: Pick<ObjectService, 'normalize' | 'parentFor'>,
  ) {}

  /**
   * Applies a save's content to the working copy of `live` (made from the live row when there is none).
   * A save that leaves the copy as the live row is removes it; a save that changes nothing stores nothing.
   */
  async save(
    trx: Tx,
    ctx: WriteContext,
    w: {
      live: ObjectRow;
      cls: ClassRow;
      draft: DraftRow | null;
      input: Omit<UpdateObjectInput, 'published'>;
      guard?: WriteGuard;
    },
  ): Promise<DraftRow | null> {
    const { live, cls, input, guard } = w;
    const base: DraftContent = w.draft ?? live;
    const attributes =
      input.attributes === undefined
        ? base.attributes
        : await this.objects.normalize(
            trx,
            ctx,
            cls,
            { ...base.attributes, ...input.attributes },
            guard && { guard, sent: input.attributes },
            base.attributes,
          );
    const key = input.key === undefined ? base.key : checkKey(input.key);
    let parent: ObjectRow | null = null;
    if (input.parentId !== undefined && input.parentId !== base.parent_id)
      parent = await this.objects.parentFor(trx, cls, input.parentId, live);
    else if (base.parent_id) parent = await findObjectById(trx, base.parent_id, undefined, this.deps.locator);
    const next: DraftContent = { key, parent_id: parent?.id ?? null, path: pathOf(parent, key, live.id), attributes };
    if (w.draft && differingFields(cls, w.draft, next).length === 0) return w.draft;
    if (differingFields(cls, live, next).length === 0) {
      if (w.draft) await deleteDraft(trx, live.id);
      return null;
    }
    return saveDraft(trx, { object_id: live.id, class_id: live.class_id, ...next, updated_by: ctx.changeActor.id });
  }

  /** Gives an object's working copy (if any) the shared values of `source` (a language row just made live). */
  async takeShared(trx: Tx, cls: ClassRow, objectId: string, source: Record<string, unknown>): Promise<void> {
    if (sharedFields(cls).length === 0) return;
    const draft = await findDraft(trx, objectId, 'update');
    if (!draft) return;
    const attributes = withSharedFrom(cls, draft.attributes, source);
    if (changedAttributes(cls.fields, draft.attributes, attributes).length === 0) return;
    await saveDraft(trx, { ...draft, attributes });
  }
}
