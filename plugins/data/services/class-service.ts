import {
  type Actor,
  diffForAudit,
  type AuditContext,
  type Tx,
  type WriteOptions,
  badRequest,
  conflict,
  forbidden,
  isUniqueViolation,
  notFound,
} from '../../../kernel/index.ts';
import { announceObjectBulk } from '../events.ts';
import { announceClassChange } from '../search-sources.ts';
import { toClassDto, type ClassDto, type ClassRow, type FieldDef } from '../model.ts';
import * as classes from '../store/class-store.ts';
import { classesReferencing, listComponents } from '../store/component-store.ts';
import { syncFieldIndexes } from '../store/field-index-store.ts';
import { deleteClassObjects } from '../store/object-store.ts';
import { createClassPartition } from '../store/object-partitions.ts';
import { changeActorOf, type WriteContext } from './actor.ts';
import type { DataServiceDeps } from './deps.ts';
import { writeDefinitions } from './definition-writes.ts';
import { breakingFieldChanges, NAME_PATTERN, normalizeFieldDefs } from './field-definitions.ts';
import { assertWellFormed } from './well-formed.ts';

export interface ClassInput {
  name?: string;
  label?: string;
  fields?: unknown[];
  viewConfig?: Record<string, unknown> | null;
  retentionDays?: number | null;
}

const AUDITED = { allow: ['name', 'label', 'fields', 'viewConfig'] } as const;
const isAdministrator = (actor: Actor) =>
  actor.type === 'system' || (actor.type === 'user' && actor.permissions.has('*'));

/** Class definitions: names, fields (and their indexes), view config and retention. */
export class ClassService {
  constructor(private readonly deps: DataServiceDeps) {}

  private get db() {
    return this.deps.kernel.db;
  }

  async list(): Promise<ClassDto[]> {
    return (await classes.listClasses(this.db)).map(toClassDto);
  }

  async get(id: string): Promise<ClassDto> {
    return toClassDto(await this.require(this.db, id));
  }

  async objectCount(id: string): Promise<number> {
    await this.require(this.db, id);
    return classes.countClassObjects(this.db, id);
  }

  async create(ctx: AuditContext, input: ClassInput, opts: WriteOptions = {}): Promise<ClassDto> {
    assertWellFormed(input);
    const name = input.name ?? '';
    if (!NAME_PATTERN.test(name))
      throw badRequest('Class name must start with a letter and hold only letters, digits and _ (at most 63)', 'name');
    if (input.retentionDays !== undefined && input.retentionDays !== null && !isAdministrator(ctx.actor)) {
      throw forbidden('Only administrators set retentionDays');
    }
    const row = await this.write(async (trx) => {
      const fields = await this.normalizeFields(trx, input.fields ?? [], name);
      let created: ClassRow;
      try {
        created = await trx.transaction((sp) =>
          classes.insertClass(sp, {
            name,
            label: input.label ?? name,
            fields,
            viewConfig: input.viewConfig ?? null,
            retentionDays: input.retentionDays ?? null,
          }),
        );
      } catch (err) {
        if (isUniqueViolation(err))
          throw conflict(`A class named "${name}" already exists`, 'CLASS_NAME_TAKEN', 'name');
        throw err;
      }
      // A new class's partition is empty: its field indexes are built at once, in this transaction.
      await createClassPartition(trx, created.id);
      await syncFieldIndexes(trx, created.id, fields);
      await this.deps.kernel.audit.record(
        ctx,
        {
          action: 'data_class.create',
          targetType: 'data_class',
          targetId: created.id,
          targetLabel: name,
          after: { name, label: created.label, fields: fields.map((f) => f.name) },
        },
        trx,
      );
      await announceClassChange(this.deps.kernel.recordHooks, trx, {
        kind: 'created',
        classId: created.id,
        name,
        actor: changeActorOf(ctx.actor),
      });
      return created;
    }, opts);
    return toClassDto(row);
  }

  async update(ctx: AuditContext, id: string, input: ClassInput, opts: WriteOptions = {}): Promise<ClassDto> {
    assertWellFormed(input);
    if (input.name !== undefined) {
      const current = await this.require(this.db, id);
      if (input.name !== current.name)
        throw badRequest('A class cannot be renamed; create a new class instead', 'name');
    }
    if (input.retentionDays !== undefined && !isAdministrator(ctx.actor))
      throw forbidden('Only administrators change retentionDays');
    const row = await this.write(async (trx) => {
      const before = await this.require(trx, id, 'update');
      let fields: FieldDef[] | undefined;
      if (input.fields !== undefined) {
        fields = await this.normalizeFields(trx, input.fields, before.name);
        const breaking = breakingFieldChanges(before.fields, fields);
        if (breaking.length > 0 && (await classes.classHasObjects(trx, id))) {
          throw conflict(
            `Field "${breaking[0]}" cannot be removed or changed while objects of this class exist; add a new field instead`,
            'CLASS_HAS_OBJECTS',
            `fields`,
          );
        }
        // Indexes left to a build are queued with this write, and built once it commits.
        if (await this.reindex(trx, id, fields)) await this.deps.indexBuilds.enqueue(id, trx);
      }
      const after = await classes.updateClass(trx, id, {
        label: input.label,
        fields,
        viewConfig: input.viewConfig,
        retentionDays: input.retentionDays,
      });
      await announceClassChange(this.deps.kernel.recordHooks, trx, {
        kind: 'updated',
        classId: id,
        name: after.name,
        actor: changeActorOf(ctx.actor),
      });
      const diff = diffForAudit(auditView(before), auditView(after), { allow: [...AUDITED.allow] });
      if (diff)
        await this.deps.kernel.audit.record(
          ctx,
          { action: 'data_class.update', targetType: 'data_class', targetId: id, targetLabel: after.name, ...diff },
          trx,
        );
      if (input.retentionDays !== undefined && before.retention_days !== after.retention_days) {
        await this.deps.kernel.audit.record(
          ctx,
          {
            action: 'data_class.retention_update',
            targetType: 'data_class',
            targetId: id,
            targetLabel: after.name,
            before: { retentionDays: before.retention_days },
            after: { retentionDays: after.retention_days },
          },
          trx,
        );
      }
      return after;
    }, opts);
    return toClassDto(row);
  }

  async remove(ctx: AuditContext, id: string, opts: WriteOptions = {}): Promise<void> {
    await this.write(async (trx) => {
      const row = await this.require(trx, id, 'update');
      if (await classes.classHasObjects(trx, id))
        throw conflict('A class cannot be deleted while it has objects; empty it first', 'CLASS_HAS_OBJECTS');
      const referencing = await classesReferencing(trx, row.name, id);
      if (referencing.length > 0)
        throw conflict(`Relation fields of ${referencing.join(', ')} point at this class`, 'CLASS_REFERENCED');
      await classes.deleteClass(trx, id);
      await announceClassChange(this.deps.kernel.recordHooks, trx, {
        kind: 'deleted',
        classId: id,
        name: row.name,
        actor: changeActorOf(ctx.actor),
      });
      await this.deps.kernel.audit.record(
        ctx,
        {
          action: 'data_class.delete',
          targetType: 'data_class',
          targetId: id,
          targetLabel: row.name,
          before: { name: row.name },
        },
        trx,
      );
      // Dropping a partition in the transaction would lock the whole table; it is detached without
      // blocking and dropped (with its indexes) by a build queued with the delete.
      await this.deps.indexBuilds.enqueue(id, trx);
    }, opts);
  }

  /** Deletes every object of the class after the caller typed its name; one `object.bulk` event. */
  async empty(
    ctx: AuditContext,
    write: WriteContext,
    id: string,
    confirm: string,
    opts: WriteOptions = {},
  ): Promise<number> {
    return this.write(async (trx) => {
      const row = await this.require(trx, id, 'update');
      if (confirm !== row.name)
        throw badRequest('confirm must equal the class name', 'confirm', 'CONFIRMATION_MISMATCH');
      const ids = await deleteClassObjects(trx, id);
      await announceObjectBulk(this.deps.kernel.recordHooks, trx, {
        bulkKind: 'empty',
        classId: id,
        className: row.name,
        ids,
        actor: changeActorOf(write.actor),
        flags: write.flags,
      });
      if (ids.length > 0) {
        await this.deps.kernel.audit.record(
          ctx,
          {
            action: 'data_class.empty',
            targetType: 'data_class',
            targetId: id,
            targetLabel: row.name,
            after: { deleted: ids.length },
          },
          trx,
        );
      }
      return ids.length;
    }, opts);
  }

  /** A write to definitions (writeDefinitions: its own transaction or the caller's, schema cache dropped). */
  private write<T>(fn: (trx: Tx) => Promise<T>, opts: WriteOptions): Promise<T> {
    return writeDefinitions(this.deps, fn, opts);
  }

  private async require(q: Tx | typeof this.db, id: string, lock?: 'update'): Promise<ClassRow> {
    const row = await classes.findClassById(q, id, lock);
    if (!row) throw notFound('Class not found', 'CLASS_NOT_FOUND');
    return row;
  }

  private async normalizeFields(trx: Tx, fields: unknown[], ownName: string): Promise<FieldDef[]> {
    const [classRows, componentRows] = await Promise.all([classes.listClasses(trx), listComponents(trx)]);
    return normalizeFieldDefs(fields, {
      classNames: new Set([...classRows.map((c) => c.name), ownName]),
      componentNames: new Set(componentRows.map((c) => c.name)),
    });
  }

  /**
   * Brings the class partition's field indexes in line with the new field list. An empty partition
   * is indexed at once in this transaction. A partition with objects is left as it is here: its new
   * indexes are built with CREATE INDEX CONCURRENTLY after commit (returns true), so the request
   * does not wait for the build and reads and writes of the class go on meanwhile (filters on the
   * new field work unindexed until then). So is a partition whose earlier build waits or runs (in any
   * process): DDL here would wait for that build, which itself waits for this transaction to end.
   */
  private async reindex(trx: Tx, classId: string, after: readonly FieldDef[]): Promise<boolean> {
    if ((await this.deps.indexBuilds.busy(classId, trx)) || (await classes.classHasObjects(trx, classId))) return true;
    await syncFieldIndexes(trx, classId, after);
    return false;
  }
}

function auditView(row: ClassRow): Record<string, unknown> {
  return { name: row.name, label: row.label, fields: row.fields, viewConfig: row.view_config };
}
