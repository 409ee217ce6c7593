import {
  type AuditContext,
  type AuditWriter,
  type Db,
  type PermissionRegistry,
  type ServiceMap,
  forbidden,
  badRequest,
} from '../../../kernel/index.ts';
import { type PimcoreDefinition, readClassFolder } from './class-files.ts';
import type { SourceService } from './sources.ts';
import { type MappedField, mapField, targetClasses } from './type-mapping.ts';

export interface ClassPreview {
  name: string;
  pimcoreId: string;
  action: 'create' | 'reuse' | 'conflict';
  reason?: string;
  fields: Array<Omit<MappedField, 'field'>>;
}

export interface ComponentPreview {
  name: string;
  kind: 'fieldcollection' | 'objectbrick';
  fields: Array<Omit<MappedField, 'field'>>;
}

export interface Preview {
  classes: ClassPreview[];
  components: ComponentPreview[];
  warnings: string[];
}

interface Plan extends Preview {
  /** Classes to create, relation targets first, with the field definitions to send. */
  creates: Array<{ name: string; label: string; fields: NonNullable<MappedField['field']>[] }>;
}

const CLASSES_MANAGE = 'data_classes:manage';
const strip = ({ field: _, ...row }: MappedField) => row;
/** Same field names and types in the same order: an existing definition is reused. */
export const sameFields = (
  a: ReadonlyArray<{ name: string; type: string }>,
  b: ReadonlyArray<{ name: string; type: string }>,
) => JSON.stringify(a.map((f) => [f.name, f.type])) === JSON.stringify(b.map((f) => [f.name, f.type]));

/**
 * Relation targets before the classes pointing at them, so each class is created after the classes
 * its relations name (the data plugin refuses a relation to a class it does not know). A cycle keeps
 * the given order: the later class's relation then falls back to json (see `plan`).
 */
export function inDependencyOrder(defs: PimcoreDefinition[]): PimcoreDefinition[] {
  const byName = new Map(defs.map((d) => [d.name, d]));
  const done = new Set<string>();
  const out: PimcoreDefinition[] = [];
  for (const start of defs) {
    const stack: Array<{ def: PimcoreDefinition; expanded: boolean }> = [{ def: start, expanded: false }];
    const onPath = new Set<string>();
    while (stack.length) {
      const top = stack[stack.length - 1];
      if (done.has(top.def.name)) {
        stack.pop();
        continue;
      }
      if (top.expanded) {
        stack.pop();
        onPath.delete(top.def.name);
        done.add(top.def.name);
        out.push(top.def);
        continue;
      }
      top.expanded = true;
      onPath.add(top.def.name);
      for (const target of top.def.fields.flatMap(targetClasses)) {
        const next = byName.get(target);
        if (next && !done.has(next.name) && !onPath.has(next.name)) stack.push({ def: next, expanded: false });
      }
    }
  }
  return out;
}

/** The class preview and import of a migration source (its class folder, through the data plugin). */
export class ClassImportService {
  constructor(
    private readonly deps: {
      db: Db;
      audit: AuditWriter;
      permissions: PermissionRegistry;
      sources: SourceService;
      dataObjects: ServiceMap['dataObjects'] | undefined;
      maxFileBytes: number;
    },
  ) {}

  private data() {
    const data = this.deps.dataObjects;
    if (!data) throw badRequest('Importing classes needs the data plugin', undefined, 'DATA_PLUGIN_MISSING');
    return data;
  }

  /** Reads and maps the class folder; `only` limits the classes (unknown names answer 400). */
  private async plan(sourceId: string, only?: string[]): Promise<Plan> {
    const source = await this.deps.sources.get(sourceId);
    const data = this.data();
    const defs = await readClassFolder(source.classPath, this.deps.maxFileBytes);
    let classes = defs.filter((d) => d.kind === 'class');
    if (only) {
      const names = new Set(classes.map((c) => c.name));
      const missing = only.find((n) => !names.has(n));
      if (missing !== undefined)
        throw badRequest(`No class file defines a class named "${missing}"`, 'classes', 'CLASS_NOT_IN_SOURCE');
      classes = classes.filter((c) => only.includes(c.name));
    }
    const warnings: string[] = [];
    const known = new Set<string>();
    // Relation targets that are already classes here (whether or not the source defines them).
    const existingNames = new Set<string>();
    for (const target of new Set(classes.flatMap((d) => d.fields.flatMap(targetClasses))))
      if (await data.classByName(target)) existingNames.add(target);
    const out: Plan = { classes: [], components: [], warnings, creates: [] };
    for (const def of inDependencyOrder(classes)) {
      // A class may relate to itself, to a class created before it, or to one that exists already.
      known.add(def.name);
      const existing = await data.classByName(def.name);
      const mapped = def.fields.map((f) => {
        const r = mapField(f, new Set([...known, ...existingNames]));
        if (r.warning) warnings.push(`${def.name}.${r.warning}`);
        return r.mapped;
      });
      const fields = mapped.flatMap((m) => (m.field ? [m.field] : []));
      const row: ClassPreview = {
        name: def.name,
        pimcoreId: def.pimcoreId,
        action: 'create',
        fields: mapped.map(strip),
      };
      if (existing) {
        if (sameFields(existing.fields, fields)) row.action = 'reuse';
        else {
          row.action = 'conflict';
          const differing = fields
            .filter((f) => !existing.fields.some((e) => e.name === f.name && e.type === f.type))
            .map((f) => f.name);
          const gone = existing.fields.filter((e) => !fields.some((f) => f.name === e.name)).map((e) => e.name);
          row.reason = `a class named ${def.name} exists with other fields (${[...differing, ...gone].slice(0, 20).join(', ')}); renaming or retyping a class's fields is refused once it has objects, so it is left as it is`;
        }
      } else out.creates.push({ name: def.name, label: def.title || def.name, fields });
      out.classes.push(row);
    }
    for (const def of defs)
      if (def.kind !== 'class')
        out.components.push({
          name: def.name,
          kind: def.kind,
          fields: def.fields.map((f) => strip(mapField(f, known).mapped)),
        });
    return out;
  }

  async preview(sourceId: string, only?: string[]): Promise<Preview> {
    const { creates: _, ...preview } = await this.plan(sourceId, only);
    return preview;
  }

  /**
   * Creates the classes the preview marks `create`, all in one transaction with the audit row
   * `migration_source.import_classes`; `reuse` and `conflict` classes are left as they are and reported.
   */
  async importClasses(ctx: AuditContext, sourceId: string, only?: string[]) {
    if (!this.deps.permissions.allows(ctx.actor, CLASSES_MANAGE))
      throw forbidden(`Importing classes needs ${CLASSES_MANAGE} too`, 'FORBIDDEN');
    const plan = await this.plan(sourceId, only);
    const data = this.data();
    const source = await this.deps.sources.get(sourceId);
    const created: Array<{ name: string; id: string }> = [];
    await this.deps.db.transaction(async (trx) => {
      for (const c of plan.creates)
        created.push(await data.createClass(ctx, c, { trx }).then((s) => ({ name: s.name, id: s.id })));
      if (created.length === 0) return;
      await this.deps.audit.record(
        ctx,
        {
          action: 'migration_source.import_classes',
          targetType: 'migration_source',
          targetId: sourceId,
          targetLabel: source.name,
          after: { created: created.map((c) => c.name) },
        },
        trx,
      );
    });
    return {
      created,
      reused: plan.classes.filter((c) => c.action === 'reuse').map((c) => c.name),
      conflicts: plan.classes
        .filter((c) => c.action === 'conflict')
        .map((c) => ({ name: c.name, reason: c.reason ?? '' })),
      warnings: plan.warnings,
    };
  }
}
