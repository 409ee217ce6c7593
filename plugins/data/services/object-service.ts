import { randomUUID } from 'node:crypto';
import {
  inTransaction,
  type Tx,
  badRequest,
  conflict,
  forbidden,
  isHttpError,
  isUniqueViolation,
  notFound,
} from '../../../kernel/index.ts';
import { announceObjectChange } from '../events.ts';
import type { ClassRow, ObjectRow } from '../model.ts';
import { findClassById, findClassByName } from '../store/class-store.ts';
import { type DraftRow, findDraft } from '../store/draft-store.ts';
import { isKeyIndexName } from '../store/object-partitions.ts';
import * as objects from '../store/object-store.ts';
import { SYSTEM_CHANGE_ACTOR, type WriteContext } from './actor.ts';
import { checkAssetReferencesOr400 } from './asset-references.ts';
import { isUuid, normalizeAttributesOr400, type AssetValueRef, type RelationRef } from './attributes.ts';
import type { DataServiceDeps } from './deps.ts';
import { WorkingCopies } from './working-copies.ts';
import {
  assertObjectSize,
  changedAttributes,
  checkKey,
  checkLocale,
  checkRelationsOr400,
  claimUniqueValues,
  isSameOrBelow,
  pathOf,
  sharedFields,
  uniqueEntriesOf,
  uniqueViolation,
  withSharedFrom,
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

/** An existing row as a write guard sees it. */
export interface GuardedRow {
  id: string;
  className: string;
  /** The change actor id of whoever created the row (null for forms, imports and bulk writes). */
  createdBy: string | null;
  published: boolean;
}

/**
 * Record-level access of a writer that may change only some rows (an API client changes only its own
 * drafts). `target` is the row a PATCH names; `language` is another language row of the record that
 * the write would also change (a new language is added to its group, or shared fields are synced).
 */
export interface WriteGuard {
  mayChange(row: GuardedRow, how: 'target' | 'language'): boolean;
  /**
   * Whether the writer may point a relation at this object. Relation values the request sends that
   * name an object it refuses answer the same 400 as an id no object has.
   */
  mayRelate?(target: GuardedRow): boolean;
}

const guarded = (row: ObjectRow, className: string): GuardedRow => ({
  id: row.id,
  className,
  createdBy: row.created_by,
  published: row.published,
});

/** What a save answers from: the live row and, when the object has one, its working copy. */
export interface SavedObject {
  row: ObjectRow;
  className: string;
  draft: DraftRow | null;
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
  /** Working copies of published objects: what a save that does not go live writes. */
  readonly workingCopies: WorkingCopies;

  constructor(private readonly deps: DataServiceDeps) {
    this.workingCopies = new WorkingCopies(deps, this);
  }

  /** True when the actor may publish (or the switch ENFORCE_PUBLISH_PERMISSION is off). */
  mayPublish(ctx: WriteContext): boolean {
    return (
      !this.deps.kernel.pluginConfig.ENFORCE_PUBLISH_PERMISSION ||
      this.deps.kernel.permissions.allows(ctx.actor, 'objects:publish')
    );
  }

  /** With a `guard`, a new language is added only to a record whose every row the guard lets the writer change. */
  async create(
    ctx: WriteContext,
    input: CreateObjectInput,
    guard?: WriteGuard,
  ): Promise<{ row: ObjectRow; className: string }> {
    return inTransaction(this.deps.kernel.db, ctx.trx, async (trx) => {
      if (input.translationGroupId === undefined) return this.createRecord(trx, ctx, input, guard);
      const cls = await this.classFor(trx, input);
      const locale = checkLocale(input.locale ?? 'en');
      const key = checkKey(input.key);
      if (!isUuid(input.translationGroupId))
        throw badRequest('translationGroupId must be a uuid', 'translationGroupId');
      const group = await objects.findGroupRows(trx, input.translationGroupId, 'update');
      // A record the writer may not change answers like one that does not exist.
      if (
        group.length === 0 ||
        group[0].class_id !== cls.id ||
        (guard && !group.every((r) => guard.mayChange(guarded(r, cls.name), 'language')))
      )
        throw badRequest('No object of this class has this translationGroupId', 'translationGroupId');
      if (group.some((r) => r.locale === locale))
        throw conflict(`The record already has a ${locale} version`, 'LOCALE_EXISTS', 'locale');
      const parent = await this.parentFor(trx, cls, input.parentId ?? null, null);
      // A new language starts from the group's shared values; what the request sends wins.
      const attributes = await this.normalize(
        trx,
        ctx,
        cls,
        { ...withSharedFrom(cls, {}, group[0].attributes), ...(input.attributes ?? {}) },
        guard && { guard, sent: input.attributes ?? {} },
        group[0].attributes,
      );
      const values = this.newRow(ctx, input, cls, {
        locale,
        key,
        parent,
        attributes,
        groupId: input.translationGroupId,
      });
      await claimUniqueValues(trx, cls, { translation_group_id: values.translation_group_id, locale }, attributes);
      const [row] = await this.keyed(() => objects.insertObjects(trx, [values]));
      await announceObjectChange(this.deps.kernel.recordHooks, trx, {
        kind: 'created',
        row,
        className: cls.name,
        actor: ctx.changeActor,
        flags: ctx.flags,
      });
      await this.syncGroup(trx, cls, row, group, ctx);
      return { row, className: cls.name };
    });
  }

  /**
   * A new record (first language row): validated against the cached class definition and written
   * with the class check, claims and row in one statement, so the class is not read again. When the
   * cache has no definition (a class made in the caller's open transaction), an older one (the class
   * changed meanwhile: nothing was written) or refuses the input (it may be out of date), the class is
   * read under its lock and the write done again against it, which also gives the real 400s. No row
   * lock is taken before the class lock in either order.
   */
  private async createRecord(
    trx: Tx,
    ctx: WriteContext,
    input: CreateObjectInput,
    guard: WriteGuard | undefined,
  ): Promise<{ row: ObjectRow; className: string }> {
    // With a parent, the class is locked first as before: the parent row is locked while it is read,
    // and taking the class lock after it could deadlock with an "empty class" holding the class lock.
    const cached = input.parentId == null ? await this.cachedClassFor(input) : null;
    if (cached) {
      const prepared = await this.prepareRecord(trx, ctx, input, cached, guard).catch((err) => {
        if (isHttpError(err)) return null;
        throw err;
      });
      const made = prepared && (await this.writeRecord(trx, ctx, cached, prepared, cached.fields));
      if (made) return made;
    }
    const cls = await this.classFor(trx, input);
    const prepared = await this.prepareRecord(trx, ctx, input, cls, guard);
    return (await this.writeRecord(trx, ctx, cls, prepared, null))!;
  }

  private async prepareRecord(
    trx: Tx,
    ctx: WriteContext,
    input: CreateObjectInput,
    cls: ClassRow,
    guard: WriteGuard | undefined,
  ) {
    const locale = checkLocale(input.locale ?? 'en');
    const key = checkKey(input.key);
    const parent = await this.parentFor(trx, cls, input.parentId ?? null, null);
    const sent = input.attributes ?? {};
    const attributes = await this.normalize(trx, ctx, cls, sent, guard && { guard, sent });
    return {
      values: this.newRow(ctx, input, cls, { locale, key, parent, attributes, groupId: randomUUID() }),
      claims: uniqueEntriesOf(cls, attributes, locale),
    };
  }

  /** Null when `fields` is given and the class no longer has them (nothing written). */
  private async writeRecord(
    trx: Tx,
    ctx: WriteContext,
    cls: ClassRow,
    prepared: { values: objects.NewObjectValues; claims: ReturnType<typeof uniqueEntriesOf> },
    fields: ClassRow['fields'] | null,
  ): Promise<{ row: ObjectRow; className: string } | null> {
    const made = await this.keyed(() => objects.insertRecordWithClaims(trx, prepared.values, prepared.claims, fields));
    if (!made) return null;
    if (made.lost) throw uniqueViolation(made.lost);
    await announceObjectChange(this.deps.kernel.recordHooks, trx, {
      kind: 'created',
      row: made.row,
      className: cls.name,
      actor: ctx.changeActor,
      flags: ctx.flags,
    });
    return { row: made.row, className: cls.name };
  }

  private newRow(
    ctx: WriteContext,
    input: CreateObjectInput,
    cls: ClassRow,
    v: {
      locale: string;
      key: string | null;
      parent: ObjectRow | null;
      attributes: Record<string, unknown>;
      groupId: string;
    },
  ): objects.NewObjectValues & { id: string } {
    const id = randomUUID();
    // Objects of writers without objects:publish are drafts (downgraded, not refused).
    const published = input.published === true && this.mayPublish(ctx);
    return {
      id,
      class_id: cls.id,
      translation_group_id: v.groupId,
      locale: v.locale,
      key: v.key,
      parent_id: v.parent?.id ?? null,
      path: pathOf(v.parent, v.key, id),
      published,
      attributes: v.attributes,
      created_by: ctx.changeActor.id,
    };
  }

  /**
   * With a `guard`, a row it does not let the writer change answers like a missing one, before the
   * input is checked against it (so no answer tells that the row exists), and shared fields are not
   * synced into language rows it does not allow (409 SHARED_FIELDS_LOCKED).
   *
   * A published object (or one that has a working copy) saved by a writer without objects:publish, or
   * with `draft: true`, keeps its live row: the content goes to its working copy (services/drafts.ts).
   * A publisher's save without `draft` goes live as before and is carried into the working copy too.
   */
  async update(
    ctx: WriteContext,
    id: string,
    input: UpdateObjectInput,
    guard?: WriteGuard,
    opts: { draft?: boolean } = {},
  ): Promise<SavedObject> {
    return inTransaction(this.deps.kernel.db, ctx.trx, async (trx) => {
      const before = await objects.findObjectById(trx, id, 'update');
      if (!before) throw notFound('Object not found', 'OBJECT_NOT_FOUND');
      const cls = (await findClassById(trx, before.class_id, 'share'))!;
      if (guard && !guard.mayChange(guarded(before, cls.name), 'target'))
        throw notFound('Object not found', 'OBJECT_NOT_FOUND');
      const draft = await findDraft(trx, before.id, 'update');
      const { published, ...content } = input;
      if ((before.published || draft) && (opts.draft === true || !this.mayPublish(ctx))) {
        // Publishing and unpublishing stay live actions (and keep their 403); the content waits.
        const live =
          published === undefined ? before : (await this.updateLive(trx, ctx, before, cls, { published }, guard)).row;
        return {
          row: live,
          className: cls.name,
          draft: await this.workingCopies.save(trx, ctx, { live: before, cls, draft, input: content, guard }),
        };
      }
      const saved = await this.updateLive(trx, ctx, before, cls, input, guard);
      const carried =
        draft && (await this.workingCopies.save(trx, ctx, { live: saved.row, cls, draft, input: content, guard }));
      return { row: saved.row, className: cls.name, draft: carried ?? null };
    });
  }

  /**
   * Changes the live row (the caller holds its lock); `changed` names what changed (attributes, key,
   * parent, path), as `object.updated` does.
   */
  async updateLive(
    trx: Tx,
    ctx: WriteContext,
    before: ObjectRow,
    cls: ClassRow,
    input: UpdateObjectInput,
    guard?: WriteGuard,
  ): Promise<{ row: ObjectRow; changed: string[] }> {
    const changed: string[] = [];
    const patch: Parameters<typeof objects.updateObjectRow>[2] = {};

    if (input.attributes !== undefined) {
      const merged = { ...before.attributes, ...input.attributes };
      const attributes = await this.normalize(
        trx,
        ctx,
        cls,
        merged,
        guard && { guard, sent: input.attributes },
        before.attributes,
      );
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
      if (!this.mayPublish(ctx))
        throw forbidden(
          `${input.published ? 'Publishing' : 'Unpublishing'} needs objects:publish`,
          'PUBLISH_FORBIDDEN',
        );
      patch.published = input.published;
    }
    if (Object.keys(patch).length === 0) return { row: before, changed };

    const row = await this.keyed(() => objects.updateObjectRow(trx, before, patch));
    const hooks = this.deps.kernel.recordHooks;
    if (changed.length > 0) {
      await announceObjectChange(hooks, trx, {
        kind: 'updated',
        row,
        className: cls.name,
        actor: ctx.changeActor,
        changedFields: changed,
        flags: ctx.flags,
      });
    }
    if (patch.published !== undefined) {
      await announceObjectChange(hooks, trx, {
        kind: row.published ? 'published' : 'unpublished',
        row,
        className: cls.name,
        actor: ctx.changeActor,
        flags: ctx.flags,
      });
    }
    if (patch.path !== undefined) await this.movePathsBelow(trx, cls, before.path, row.path, ctx);
    if (patch.attributes && changedAttributes(sharedFields(cls), before.attributes, row.attributes).length > 0) {
      const group = (await objects.findGroupRows(trx, row.translation_group_id, 'update')).filter(
        (r) => r.id !== row.id,
      );
      if (guard && !group.every((r) => guard.mayChange(guarded(r, cls.name), 'language')))
        throw conflict(
          'Shared fields of this record also belong to language versions this writer may not change',
          'SHARED_FIELDS_LOCKED',
        );
      await this.syncGroup(trx, cls, row, group, ctx);
    }
    return { row, changed };
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
    if (await objects.hasChildrenOutside(trx, rows))
      throw conflict('The object has children; delete or move them first', 'OBJECT_HAS_CHILDREN');
    const deleted = await objects.deleteObjects(trx, rows);
    for (const row of deleted) {
      await announceObjectChange(this.deps.kernel.recordHooks, trx, {
        kind: 'deleted',
        row,
        className,
        actor: ctx.changeActor,
        flags: ctx.flags,
      });
    }
  }

  /**
   * Brings the other language rows' shared fields in line with `source`; each row that changed
   * announces `object.updated` with actor `system` (the spec's translation rule).
   */
  private async syncGroup(
    trx: Tx,
    cls: ClassRow,
    source: ObjectRow,
    others: readonly ObjectRow[],
    ctx: WriteContext,
  ): Promise<void> {
    for (const other of others) {
      // A language's working copy takes the shared values too, so its later promote does not undo them.
      await this.workingCopies.takeShared(trx, cls, other.id, source.attributes);
      const attributes = withSharedFrom(cls, other.attributes, source.attributes);
      const names = changedAttributes(cls.fields, other.attributes, attributes);
      if (names.length === 0) continue;
      const row = await objects.updateObjectRow(trx, other, { attributes });
      await announceObjectChange(this.deps.kernel.recordHooks, trx, {
        kind: 'updated',
        row,
        className: cls.name,
        actor: SYSTEM_CHANGE_ACTOR,
        changedFields: names,
        flags: ctx.flags,
      });
    }
  }

  private async movePathsBelow(
    trx: Tx,
    cls: ClassRow,
    oldPath: string,
    newPath: string,
    ctx: WriteContext,
  ): Promise<void> {
    const moved = await objects.rewriteDescendantPaths(trx, cls.id, oldPath, newPath);
    for (const row of moved) {
      await announceObjectChange(this.deps.kernel.recordHooks, trx, {
        kind: 'updated',
        row,
        className: cls.name,
        actor: ctx.changeActor,
        changedFields: ['path'],
        flags: ctx.flags,
      });
    }
  }

  /** The cached definition of the class a create names, or null (not cached, or malformed input: the locked read answers). */
  private async cachedClassFor(input: CreateObjectInput): Promise<ClassRow | null> {
    if (input.classId !== undefined) return isUuid(input.classId) ? this.deps.schema.classById(input.classId) : null;
    if (input.className !== undefined) return this.deps.schema.classByName(input.className);
    return null;
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

  /** The parent row a write names (locked against deletion), checked: same class, not below the object itself. */
  async parentFor(trx: Tx, cls: ClassRow, parentId: string | null, self: ObjectRow | null): Promise<ObjectRow | null> {
    if (parentId === null) return null;
    if (!isUuid(parentId)) throw badRequest('parentId must be a uuid', 'parentId');
    // Locked against deletion until the write commits (the database keeps no foreign key here).
    const parent = await objects.findObjectById(trx, parentId, 'share');
    if (!parent || parent.class_id !== cls.id)
      throw badRequest('parentId must be an object of the same class', 'parentId');
    if (self && isSameOrBelow(parent.path, self.path))
      throw badRequest('An object cannot be moved below itself', 'parentId');
    return parent;
  }

  /**
   * `relating`: the relation values among the `sent` attributes must name objects the guard lets the
   * writer relate to. `before`: the values the record held (an asset reference it held may stay).
   */
  async normalize(
    trx: Tx,
    ctx: WriteContext,
    cls: ClassRow,
    attributes: Record<string, unknown>,
    relating?: { guard: WriteGuard; sent: Record<string, unknown> },
    before?: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const refs: RelationRef[] = [];
    const assets: AssetValueRef[] = [];
    const out = normalizeAttributesOr400(
      attributes,
      { fields: cls.fields, components: await this.deps.schema.componentFields() },
      refs,
      assets,
    );
    assertObjectSize(out, this.deps.kernel.pluginConfig.DATA_MAX_OBJECT_BYTES);
    await checkRelationsOr400(trx, refs);
    await checkAssetReferencesOr400(trx, assets, ctx, this.deps.kernel.assetLibrary, before);
    if (relating?.guard.mayRelate) await this.checkRelatable(trx, refs, relating.guard.mayRelate, relating.sent);
    return out;
  }

  /** A sent relation to an object the guard refuses answers like one to an id no object has. */
  private async checkRelatable(
    trx: Tx,
    refs: readonly RelationRef[],
    mayRelate: NonNullable<WriteGuard['mayRelate']>,
    sent: Record<string, unknown>,
  ): Promise<void> {
    const named = refs.filter((r) => Object.hasOwn(sent, r.field.split('.')[1] ?? ''));
    if (named.length === 0) return;
    const rows = new Map(
      (await objects.findObjectsByIds(trx, [...new Set(named.map((r) => r.id))])).map((r) => [r.id, r]),
    );
    const bad = named.find((r) => {
      const row = rows.get(r.id);
      return !row || !mayRelate(guarded(row, r.className));
    });
    if (bad) throw badRequest(`${bad.field}: no object of class ${bad.className} has id ${bad.id}`, bad.field);
  }

  /** Races the pre-checks cannot see end here: same key (class, key, locale) or same language twice. */
  private async keyed<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isUniqueViolation(err) && isKeyIndexName(err.constraint))
        throw conflict('key is already in use in this class and locale', 'KEY_IN_USE', 'key');
      if (isUniqueViolation(err))
        throw conflict('The record already has a version in this locale', 'LOCALE_EXISTS', 'locale');
      throw err;
    }
  }
}
