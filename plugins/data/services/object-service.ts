import { randomUUID } from 'node:crypto';
import { inTransaction, type Tx, badRequest, conflict, forbidden, isUniqueViolation, notFound } from '../../../kernel/index.ts';
import { announceObjectChange } from '../events.ts';
import type { ClassRow, ObjectRow } from '../model.ts';
import { findClassById, findClassByName } from '../store/class-store.ts';
import { isKeyIndexName } from '../store/object-partitions.ts';
import * as objects from '../store/object-store.ts';
import { SYSTEM_CHANGE_ACTOR, type WriteContext } from './actor.ts';
import { isUuid, normalizeAttributesOr400, type RelationRef } from './attributes.ts';
import type { DataServiceDeps } from './deps.ts';
import {
  assertObjectSize, changedAttributes, checkKey, checkLocale, checkRelationsOr400, claimUniqueValues, isSameOrBelow, pathOf, sharedFields, uniqueEntriesOf, uniqueViolation, withSharedFrom,
} from './object-rules.ts';

export interface CreateObjectInput {
  classId?: string;
  className?: string;
  locale?: string;
  key?: string | null;
  parentId?: string | null;
  published?: boolean;
  attributes?: Record<string, unknown>;
  translationGroupId?: string;
}

export interface UpdateObjectInput {
  key?: string | null;
  parentId?: string | null;
  published?: boolean;
  /** Merged into the stored attributes; `null` clears a value. */
  attributes?: Record<string, unknown>;
}

/**
 * Object writes: one transaction each, with unique claims, shared-field sync across the translation
 * group and the spec's events announced inside the transaction.
 */
export class ObjectService {
  constructor(private readonly deps: DataServiceDeps) {}

  /** True when the actor may publish (or the switch ENFORCE_PUBLISH_PERMISSION is off). */
  mayPublish(ctx: WriteContext): boolean {
    return !this.deps.kernel.pluginConfig.ENFORCE_PUBLISH_PERMISSION || this.deps.kernel.permissions.allows(ctx.actor, 'objects:publish');
  }

  async create(ctx: WriteContext, input: CreateObjectInput): Promise<{ row: ObjectRow; className: string }> {
    return inTransaction(this.deps.kernel.db, ctx.trx, async (trx) => {
      const cls = await this.classFor(trx, input);
      const locale = checkLocale(input.locale ?? 'en');
      const key = checkKey(input.key);
      const id = randomUUID();
      let group: ObjectRow[] = [];
      if (input.translationGroupId !== undefined) {
        if (!isUuid(input.translationGroupId)) throw badRequest('translationGroupId must be a uuid', 'translationGroupId');
        group = await objects.findGroupRows(trx, input.translationGroupId, 'update');
        if (group.length === 0 || group[0].class_id !== cls.id) throw badRequest('No object of this class has this translationGroupId', 'translationGroupId');
        if (group.some((r) => r.locale === locale)) throw conflict(`The record already has a ${locale} version`, 'LOCALE_EXISTS', 'locale');
      }
      const parent = await this.parentFor(trx, cls, input.parentId ?? null, null);
      // A new language starts from the group's shared values; what the request sends wins.
      const given = input.attributes ?? {};
      const seed = group.length > 0 ? withSharedFrom(cls, {}, group[0].attributes) : {};
      const attributes = await this.normalize(trx, cls, { ...seed, ...given });
      // Objects of writers without objects:publish are drafts (downgraded, not refused).
      const published = input.published === true && this.mayPublish(ctx);
      const groupId = input.translationGroupId ?? randomUUID();
      const values = { id, class_id: cls.id, translation_group_id: groupId, locale, key, parent_id: parent?.id ?? null, path: pathOf(parent, key, id), published, attributes, created_by: ctx.changeActor.id };
      let row: ObjectRow;
      if (group.length === 0 && input.translationGroupId === undefined) {
        // A new record: its claims and its row in one statement.
        const made = await this.keyed(() => objects.insertRecordWithClaims(trx, values, uniqueEntriesOf(cls, attributes, locale)));
        if (made.lost) throw uniqueViolation(made.lost);
        row = made.row;
      } else {
        await claimUniqueValues(trx, cls, { translation_group_id: groupId, locale }, attributes);
        [row] = await this.keyed(() => objects.insertObjects(trx, [values]));
      }
      await announceObjectChange(this.deps.kernel.recordHooks, trx, { kind: 'created', row, className: cls.name, actor: ctx.changeActor, flags: ctx.flags });
      await this.syncGroup(trx, cls, row, group, ctx);
      return { row, className: cls.name };
    });
  }

  async update(ctx: WriteContext, id: string, input: UpdateObjectInput): Promise<{ row: ObjectRow; className: string }> {
    return inTransaction(this.deps.kernel.db, ctx.trx, async (trx) => {
      const before = await objects.findObjectById(trx, id, 'update');
      if (!before) throw notFound('Object not found', 'OBJECT_NOT_FOUND');
      const cls = (await findClassById(trx, before.class_id, 'share'))!;
      const changed: string[] = [];
      const patch: Parameters<typeof objects.updateObjectRow>[2] = {};

      if (input.attributes !== undefined) {
        const merged = { ...before.attributes, ...input.attributes };
        const attributes = await this.normalize(trx, cls, merged);
        const names = changedAttributes(cls.fields, before.attributes, attributes);
        if (names.length > 0) {
          changed.push(...names);
          patch.attributes = attributes;
          await claimUniqueValues(trx, cls, before, attributes);
        }
      }
      const key = input.key === undefined ? before.key : checkKey(input.key);
      if (key !== before.key) {
        changed.push('key');
        patch.key = key;
      }
      let parentId = before.parent_id;
      let parent: ObjectRow | null = null;
      if (input.parentId !== undefined && input.parentId !== before.parent_id) {
        parent = await this.parentFor(trx, cls, input.parentId, before);
        parentId = parent?.id ?? null;
        changed.push('parent');
        patch.parent_id = parentId;
      } else if (before.parent_id) {
        parent = await objects.findObjectById(trx, before.parent_id);
      }
      const path = pathOf(parent, key, before.id);
      if (path !== before.path) {
        changed.push('path');
        patch.path = path;
      }
      if (input.published !== undefined && input.published !== before.published) {
        if (!this.mayPublish(ctx)) throw forbidden(`${input.published ? 'Publishing' : 'Unpublishing'} needs objects:publish`, 'PUBLISH_FORBIDDEN');
        patch.published = input.published;
      }
      if (Object.keys(patch).length === 0) return { row: before, className: cls.name };

      const row = await this.keyed(() => objects.updateObjectRow(trx, before, patch));
      const hooks = this.deps.kernel.recordHooks;
      if (changed.length > 0) {
        await announceObjectChange(hooks, trx, { kind: 'updated', row, className: cls.name, actor: ctx.changeActor, changedFields: changed, flags: ctx.flags });
      }
      if (patch.published !== undefined) {
        await announceObjectChange(hooks, trx, { kind: row.published ? 'published' : 'unpublished', row, className: cls.name, actor: ctx.changeActor, flags: ctx.flags });
      }
      if (patch.path !== undefined) await this.movePathsBelow(trx, cls, before.path, row.path, ctx);
      if (patch.attributes && changedAttributes(sharedFields(cls), before.attributes, row.attributes).length > 0) {
        const group = (await objects.findGroupRows(trx, row.translation_group_id, 'update')).filter((r) => r.id !== row.id);
        await this.syncGroup(trx, cls, row, group, ctx);
      }
      return { row, className: cls.name };
    });
  }

  async remove(ctx: WriteContext, id: string): Promise<void> {
    await inTransaction(this.deps.kernel.db, ctx.trx, async (trx) => {
      const row = await objects.findObjectById(trx, id, 'update');
      if (!row) throw notFound('Object not found', 'OBJECT_NOT_FOUND');
      const cls = (await findClassById(trx, row.class_id))!;
      await this.deleteRows(trx, cls.name, [row], ctx);
    });
  }

  /** Deletes rows (no children outside the set) and announces each as it was. */
  async deleteRows(trx: Tx, className: string, rows: readonly ObjectRow[], ctx: WriteContext): Promise<void> {
    if (await objects.hasChildrenOutside(trx, rows)) throw conflict('The object has children; delete or move them first', 'OBJECT_HAS_CHILDREN');
    const deleted = await objects.deleteObjects(trx, rows);
    for (const row of deleted) {
      await announceObjectChange(this.deps.kernel.recordHooks, trx, { kind: 'deleted', row, className, actor: ctx.changeActor, flags: ctx.flags });
    }
  }

  /**
   * Brings the other language rows' shared fields in line with `source`; each row that changed
   * announces `object.updated` with actor `system` (the spec's translation rule).
   */
  private async syncGroup(trx: Tx, cls: ClassRow, source: ObjectRow, others: readonly ObjectRow[], ctx: WriteContext): Promise<void> {
    for (const other of others) {
      const attributes = withSharedFrom(cls, other.attributes, source.attributes);
      const names = changedAttributes(cls.fields, other.attributes, attributes);
      if (names.length === 0) continue;
      const row = await objects.updateObjectRow(trx, other, { attributes });
      await announceObjectChange(this.deps.kernel.recordHooks, trx, { kind: 'updated', row, className: cls.name, actor: SYSTEM_CHANGE_ACTOR, changedFields: names, flags: ctx.flags });
    }
  }

  private async movePathsBelow(trx: Tx, cls: ClassRow, oldPath: string, newPath: string, ctx: WriteContext): Promise<void> {
    const moved = await objects.rewriteDescendantPaths(trx, cls.id, oldPath, newPath);
    for (const row of moved) {
      await announceObjectChange(this.deps.kernel.recordHooks, trx, { kind: 'updated', row, className: cls.name, actor: ctx.changeActor, changedFields: ['path'], flags: ctx.flags });
    }
  }

  private async classFor(trx: Tx, input: CreateObjectInput): Promise<ClassRow> {
    let cls: ClassRow | null = null;
    if (input.classId !== undefined) {
      if (!isUuid(input.classId)) throw badRequest('classId must be a uuid', 'classId');
      cls = await findClassById(trx, input.classId, 'share');
      if (!cls) throw badRequest('No class has this id', 'classId');
    } else if (input.className !== undefined) {
      cls = await findClassByName(trx, input.className, 'share');
      if (!cls) throw badRequest(`No class is named "${input.className}"`, 'className');
    } else throw badRequest('classId or className is required', 'classId');
    return cls;
  }

  private async parentFor(trx: Tx, cls: ClassRow, parentId: string | null, self: ObjectRow | null): Promise<ObjectRow | null> {
    if (parentId === null) return null;
    if (!isUuid(parentId)) throw badRequest('parentId must be a uuid', 'parentId');
    // Locked against deletion until the write commits (the database keeps no foreign key here).
    const parent = await objects.findObjectById(trx, parentId, 'share');
    if (!parent || parent.class_id !== cls.id) throw badRequest('parentId must be an object of the same class', 'parentId');
    if (self && isSameOrBelow(parent.path, self.path)) throw badRequest('An object cannot be moved below itself', 'parentId');
    return parent;
  }

  private async normalize(trx: Tx, cls: ClassRow, attributes: Record<string, unknown>): Promise<Record<string, unknown>> {
    const refs: RelationRef[] = [];
    const out = normalizeAttributesOr400(attributes, { fields: cls.fields, components: await this.deps.schema.componentFields() }, refs);
    assertObjectSize(out, this.deps.kernel.pluginConfig.DATA_MAX_OBJECT_BYTES);
    await checkRelationsOr400(trx, refs);
    return out;
  }

  /** Races the pre-checks cannot see end here: same key (class, key, locale) or same language twice. */
  private async keyed<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isUniqueViolation(err) && isKeyIndexName(err.constraint)) throw conflict('key is already in use in this class and locale', 'KEY_IN_USE', 'key');
      if (isUniqueViolation(err)) throw conflict('The record already has a version in this locale', 'LOCALE_EXISTS', 'locale');
      throw err;
    }
  }
}
