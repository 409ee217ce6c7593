import {
  type Tx,
  type WriteOptions,
  badRequest,
  conflict,
  isUniqueViolation,
  notFound,
} from '../../../kernel/index.ts';
import { toComponentDto, type ComponentDto, type ComponentRow, type FieldDef } from '../model.ts';
import * as components from '../store/component-store.ts';
import { listClasses } from '../store/class-store.ts';
import type { DataServiceDeps } from './deps.ts';
import { writeDefinitions } from './definition-writes.ts';
import { breakingFieldChanges, NAME_PATTERN, normalizeFieldDefs } from './field-definitions.ts';
import { assertWellFormed } from './well-formed.ts';

export interface ComponentInput {
  name?: string;
  label?: string;
  fields?: unknown[];
}

export interface ComponentUsage {
  inUse: boolean;
  classes: Array<{ id: string; name: string }>;
  objectCount: number;
}

/**
 * Reusable field collections. "In use" means an object of a class that uses the component exists:
 * then renaming or retyping its fields and deleting it are refused. A component that a class still
 * names cannot be deleted either (the class definition would point at nothing).
 */
export class ComponentService {
  constructor(private readonly deps: DataServiceDeps) {}

  private get db() {
    return this.deps.kernel.db;
  }

  async list(): Promise<ComponentDto[]> {
    return (await components.listComponents(this.db)).map(toComponentDto);
  }

  async get(id: string): Promise<ComponentDto> {
    return toComponentDto(await this.require(this.db, id));
  }

  async usage(id: string): Promise<ComponentUsage> {
    const row = await this.require(this.db, id);
    const usage = await components.componentUsage(this.db, row.name);
    return { inUse: usage.objectCount > 0, ...usage };
  }

  async create(input: ComponentInput, opts: WriteOptions = {}): Promise<ComponentDto> {
    assertWellFormed(input);
    const name = input.name ?? '';
    if (!NAME_PATTERN.test(name))
      throw badRequest(
        'Component name must start with a letter and hold only letters, digits and _ (at most 63)',
        'name',
      );
    const row = await this.write(async (trx) => {
      const fields = await this.normalizeFields(trx, input.fields ?? []);
      try {
        return await trx.transaction((sp) =>
          components.insertComponent(sp, { name, label: input.label ?? name, fields }),
        );
      } catch (err) {
        if (isUniqueViolation(err))
          throw conflict(`A component named "${name}" already exists`, 'COMPONENT_NAME_TAKEN', 'name');
        throw err;
      }
    }, opts);
    return toComponentDto(row);
  }

  async update(id: string, input: ComponentInput, opts: WriteOptions = {}): Promise<ComponentDto> {
    assertWellFormed(input);
    const row = await this.write(async (trx) => {
      const before = await this.require(trx, id, 'update');
      if (input.name !== undefined && input.name !== before.name)
        throw badRequest('A component cannot be renamed', 'name');
      let fields: FieldDef[] | undefined;
      if (input.fields !== undefined) {
        fields = await this.normalizeFields(trx, input.fields);
        const breaking = breakingFieldChanges(before.fields, fields);
        if (breaking.length > 0 && (await components.componentUsage(trx, before.name)).objectCount > 0) {
          throw conflict(
            `Field "${breaking[0]}" cannot be removed or changed while objects use this component`,
            'COMPONENT_IN_USE',
            'fields',
          );
        }
      }
      return components.updateComponent(trx, id, { label: input.label, fields });
    }, opts);
    return toComponentDto(row);
  }

  async remove(id: string, opts: WriteOptions = {}): Promise<void> {
    await this.write(async (trx) => {
      const row = await this.require(trx, id, 'update');
      const usage = await components.componentUsage(trx, row.name);
      if (usage.objectCount > 0)
        throw conflict('The component is in use by objects and cannot be deleted', 'COMPONENT_IN_USE');
      if (usage.classes.length > 0) {
        throw conflict(
          `Classes ${usage.classes.map((c) => c.name).join(', ')} still use this component`,
          'COMPONENT_REFERENCED',
        );
      }
      await components.deleteComponent(trx, id);
    }, opts);
  }

  /** A write to definitions (writeDefinitions: its own transaction or the caller's, schema cache dropped). */
  private write<T>(fn: (trx: Tx) => Promise<T>, opts: WriteOptions): Promise<T> {
    return writeDefinitions(this.deps, fn, opts);
  }

  private async require(q: Tx | typeof this.db, id: string, lock?: 'update'): Promise<ComponentRow> {
    const row = await components.findComponentById(q, id, lock);
    if (!row) throw notFound('Component not found', 'COMPONENT_NOT_FOUND');
    return row;
  }

  private async normalizeFields(trx: Tx, fields: unknown[]): Promise<FieldDef[]> {
    const classRows = await listClasses(trx);
    return normalizeFieldDefs(fields, {
      classNames: new Set(classRows.map((c) => c.name)),
      componentNames: new Set(),
      insideComponent: true,
    });
  }
}
