import {
  type AuditContext,
  type AuditWriter,
  type Db,
  type PermissionRegistry,
  type ServiceMap,
  badRequest,
  forbidden,
} from '../../../kernel/index.ts';
import { readClassFolder } from './class-files.ts';
import { sameFields } from './class-import.ts';
import type { SourceService } from './sources.ts';
import { mapField } from './type-mapping.ts';

const CLASSES_MANAGE = 'data_classes:manage';

export interface ExtractedComponents {
  created: Array<{ name: string; id: string; kind: 'fieldcollection' | 'objectbrick' }>;
  reused: string[];
  conflicts: Array<{ name: string; reason: string }>;
  warnings: string[];
}

/**
 * `extract-components`: Pimcore's field collections and object bricks (`fieldcollections/<Name>.php`,
 * `objectbricks/<Name>.php` of the class folder) become data components with their fields mapped as
 * a class's are. A component of the same name and fields is reused; one with other fields is left as
 * it is and reported (a component in use refuses renamed or retyped fields). All or nothing, with the
 * audit row `migration_source.extract_components`. The classes keep such fields as json (the README
 * says why): the components are there for the objects' new model.
 */
export class ComponentExtraction {
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

  async extract(ctx: AuditContext, sourceId: string, only?: string[]): Promise<ExtractedComponents> {
    if (!this.deps.permissions.allows(ctx.actor, CLASSES_MANAGE))
      throw forbidden(`Extracting components needs ${CLASSES_MANAGE} too`, 'FORBIDDEN');
    const data = this.deps.dataObjects;
    if (!data) throw badRequest('The data plugin is not loaded: nothing can be created', undefined, 'DATA_UNAVAILABLE');
    const source = await this.deps.sources.get(sourceId);
    let defs = (await readClassFolder(source.classPath, this.deps.maxFileBytes)).filter((d) => d.kind !== 'class');
    if (only) {
      const missing = only.find((name) => !defs.some((d) => d.name === name));
      if (missing !== undefined)
        throw badRequest(
          `No field collection or object brick file defines "${missing}"`,
          'components',
          'COMPONENT_NOT_IN_SOURCE',
        );
      defs = defs.filter((d) => only.includes(d.name));
    }
    const classNames = new Set(await data.classNames());
    const out: ExtractedComponents = { created: [], reused: [], conflicts: [], warnings: [] };
    const creates: Array<{ name: string; label: string; kind: 'fieldcollection' | 'objectbrick'; fields: unknown[] }> =
      [];
    const seen = new Set<string>();
    for (const def of defs) {
      const kind = def.kind as 'fieldcollection' | 'objectbrick';
      if (seen.has(def.name)) {
        out.conflicts.push({
          name: def.name,
          reason: `a field collection and an object brick are both named ${def.name}`,
        });
        continue;
      }
      seen.add(def.name);
      const fields = def.fields.flatMap((f) => {
        const { mapped, warning } = mapField(f, classNames);
        if (warning) out.warnings.push(`${def.name}.${warning}`);
        if (!mapped.field) return [];
        // A component's fields are per object: a language of its own is the class's to say.
        const { localized: _, ...field } = mapped.field;
        if (mapped.translated)
          out.warnings.push(`${def.name}.${f.name}: localized inside a ${kind}, kept as one value`);
        return [field];
      });
      const existing = await data.componentByName(def.name);
      if (!existing) creates.push({ name: def.name, label: def.title || def.name, kind, fields });
      else if (sameFields(existing.fields, fields as Array<{ name: string; type: string }>)) out.reused.push(def.name);
      else
        out.conflicts.push({
          name: def.name,
          reason: `a component named ${def.name} exists with other fields; it is left as it is`,
        });
    }
    await this.deps.db.transaction(async (trx) => {
      for (const c of creates) {
        const made = await data.createComponent({ name: c.name, label: c.label, fields: c.fields }, { trx });
        out.created.push({ name: made.name, id: made.id, kind: c.kind });
      }
      if (out.created.length === 0) return;
      await this.deps.audit.record(
        ctx,
        {
          action: 'migration_source.extract_components',
          targetType: 'migration_source',
          targetId: sourceId,
          targetLabel: source.name,
          after: { created: out.created.map((c) => c.name) },
        },
        trx,
      );
    });
    return out;
  }
}
