import { type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { badRequest, type Db, isUuid, type PermissionRegistry, type PluginContributions } from '../../kernel/index.ts';
import type { ClassRow, ComponentRow, FieldDef, ObjectRow } from './model.ts';
import { DATA_KEYS } from './permissions.ts';
import type { DataServices } from './services/index.ts';
import { BundleStore } from './store/bundle-store.ts';
import type { DraftRow } from './store/draft-store.ts';

type Part = PluginContributions['websiteBundleParts'];
type Plan = Awaited<ReturnType<Part['plan']>>;

interface BundleClass {
  id: string;
  name: string;
  label: string;
  fields: FieldDef[];
  viewConfig?: Record<string, unknown> | null;
}
interface BundleObject {
  id: string;
  className: string;
  translationGroupId: string;
  locale: string;
  key: string | null;
  parentId: string | null;
  published: boolean;
  attributes: Record<string, unknown>;
  /** `?drafts=1`: the object's working copy (what its next publish makes live). */
  workingCopy?: BundleWorkingCopy;
}
interface BundleWorkingCopy {
  key: string | null;
  parentId: string | null;
  attributes: Record<string, unknown>;
}

const Text = (max: number) => Type.Union([Type.Null(), Type.String({ maxLength: max })]);
const open = { additionalProperties: true };
/** What an import writes of each section, typed (the services check values; these are the shapes). */
const SHAPES: ReadonlyArray<[string, TSchema]> = [
  ['dataComponents', Type.Object({ id: Type.Optional(Type.String({ maxLength: 200 })) }, open)],
  [
    'dataClasses',
    Type.Object(
      {
        id: Type.Optional(Type.String({ maxLength: 200 })),
        viewConfig: Type.Optional(Type.Union([Type.Null(), Type.Object({}, open)])),
      },
      open,
    ),
  ],
  [
    'dataObjects',
    Type.Object(
      {
        id: Type.Optional(Type.String({ maxLength: 200 })),
        className: Type.String({ minLength: 1, maxLength: 200 }),
        translationGroupId: Type.Optional(Text(200)),
        locale: Type.Optional(Text(35)),
        key: Type.Optional(Text(1000)),
        parentId: Type.Optional(Text(200)),
        published: Type.Optional(Type.Boolean()),
        attributes: Type.Optional(Type.Union([Type.Null(), Type.Object({}, open)])),
        workingCopy: Type.Optional(
          Type.Object(
            {
              key: Type.Optional(Text(1000)),
              parentId: Type.Optional(Text(200)),
              attributes: Type.Optional(Type.Object({}, open)),
            },
            open,
          ),
        ),
      },
      open,
    ),
  ],
];

/** 400 naming the first field of a data section that has the wrong type (`dataObjects.3.key`). */
function checkShapes(manifest: Record<string, unknown>): void {
  for (const [section, schema] of SHAPES) {
    const items = manifest[section];
    if (!Array.isArray(items)) continue;
    items.forEach((item, i) => {
      if (Value.Check(schema, item)) return;
      const first = [...Value.Errors(schema, item)][0];
      const field = [section, i, ...(first?.path ?? '').split('/').filter(Boolean)].join('.');
      throw badRequest(`${field}: ${first?.message ?? 'not valid'}`, field, 'INVALID_MANIFEST');
    });
  }
}

const sameFields = (a: readonly FieldDef[], b: readonly FieldDef[]) =>
  JSON.stringify(a.map((f) => [f.name, f.type])) === JSON.stringify(b.map((f) => [f.name, f.type]));

const classOut = (c: ClassRow | ComponentRow): BundleClass => ({
  id: c.id,
  name: c.name,
  label: c.label,
  fields: c.fields ?? [],
  ...('view_config' in c ? { viewConfig: c.view_config } : {}),
});

/**
 * The data plugin's part of a website bundle: the classes the website uses (named by its pages or
 * referenced from its content), the components those classes use, and their objects (all, or only
 * those referenced). Import reuses a class of the same name and fields, creates a missing one and
 * refuses (conflict) one whose fields differ.
 */
export function dataBundlePart(s: DataServices, db: Db, permissions: PermissionRegistry): Part {
  const store = new BundleStore(db);
  const list = <T>(m: Record<string, unknown>, key: string) => (Array.isArray(m[key]) ? (m[key] as T[]) : []);
  return {
    id: 'data',
    order: 10,
    async exportSections({ dataObjects, strings, drafts }) {
      const all = await store.classes();
      // Objects the content names by id; their classes are used by the website whatever the mode.
      const refObjects = await store.objects({ ids: [...strings].filter(isUuid) });
      const used = all.filter(
        (c) => strings.has(c.name) || strings.has(c.id) || refObjects.some((o) => o.class_id === c.id),
      );
      // Relation targets come along so relation fields keep their class.
      for (let grew = true; grew; ) {
        grew = false;
        for (const c of used)
          for (const f of c.fields ?? [])
            if (f.relation?.class && !used.some((u) => u.name === f.relation?.class)) {
              const target = all.find((x) => x.name === f.relation?.class);
              if (target) {
                used.push(target);
                grew = true;
              }
            }
      }
      const componentNames = new Set(used.flatMap((c) => (c.fields ?? []).map((f) => f.component).filter(Boolean)));
      const components = (await store.components()).filter((c) => componentNames.has(c.name));
      const names = new Map(all.map((c) => [c.id, c.name]));
      const objects =
        dataObjects === 'referenced' ? refObjects : await store.objects({ classIds: used.map((c) => c.id) });
      // `?drafts=1`: each object with a working copy carries it beside its live values.
      const copies = drafts ? await s.drafts.draftsOf(db, objects) : new Map<string, DraftRow>();
      const copyOf = (o: ObjectRow): { workingCopy?: BundleWorkingCopy } => {
        const d = copies.get(o.id);
        return d ? { workingCopy: { key: d.key, parentId: d.parent_id, attributes: d.attributes ?? {} } } : {};
      };
      return {
        dataClasses: used.map(classOut),
        dataComponents: components.map(classOut),
        dataObjects: objects.map((o: ObjectRow) => ({
          id: o.id,
          className: names.get(o.class_id),
          translationGroupId: o.translation_group_id,
          locale: o.locale,
          key: o.key,
          parentId: o.parent_id,
          published: o.published,
          attributes: o.attributes,
          ...copyOf(o),
        })),
      };
    },
    async plan(manifest, ctx) {
      const plan: Plan = { counts: {}, actions: [], warnings: [], blocking: [] };
      checkShapes(manifest);
      // Creating a definition needs the key its own route needs: objects:write alone never adds classes.
      const mayDefine = permissions.allows(ctx.actor, DATA_KEYS.classesManage);
      const classes = new Map((await store.classes()).map((c) => [c.name, c]));
      const components = new Map((await store.components()).map((c) => [c.name, c]));
      for (const [kind, section, existing] of [
        ['component', 'dataComponents', components],
        ['class', 'dataClasses', classes],
      ] as const) {
        const items = list<BundleClass>(manifest, section);
        plan.counts[section] = items.length;
        for (const item of items) {
          const found = existing.get(item.name);
          const action = !found
            ? mayDefine
              ? { kind, name: item.name, action: 'create' as const }
              : {
                  kind,
                  name: item.name,
                  action: 'conflict' as const,
                  reason: `creating the ${kind} ${item.name} needs ${DATA_KEYS.classesManage}`,
                }
            : sameFields(found.fields ?? [], item.fields ?? [])
              ? { kind, name: item.name, action: 'reuse' as const, reason: 'same name and fields' }
              : {
                  kind,
                  name: item.name,
                  action: 'conflict' as const,
                  reason: `a ${kind} named ${item.name} exists with other fields`,
                };
          plan.actions.push(action);
          if (action.action === 'conflict') plan.blocking.push(action);
        }
      }
      const objects = list<BundleObject>(manifest, 'dataObjects');
      plan.counts.dataObjects = objects.length;
      const keysByClass = new Map<string, string[]>();
      for (const o of objects)
        if (o.key) keysByClass.set(o.className, [...(keysByClass.get(o.className) ?? []), o.key]);
      let reused = 0;
      for (const [className, keys] of keysByClass) reused += await store.countKeyed(className, keys);
      if (reused)
        plan.warnings.push(
          `${reused} objects already exist with the same class, key and language: they are reused, not overwritten`,
        );
      return plan;
    },
    async apply(manifest, ctx) {
      checkShapes(manifest);
      const { trx, ids } = ctx;
      const existingComponents = new Map((await store.components()).map((c) => [c.name, c]));
      for (const c of list<BundleClass>(manifest, 'dataComponents')) {
        ctx.current = { kind: 'component', name: c.name };
        const found = existingComponents.get(c.name);
        const row = found ?? (await s.components.create({ name: c.name, label: c.label, fields: c.fields }, { trx }));
        ids.set(c.id, row.id);
        if (!found) ctx.created.dataComponents = (ctx.created.dataComponents ?? 0) + 1;
      }
      const existingClasses = new Map((await store.classes()).map((c) => [c.name, c]));
      for (const c of list<BundleClass>(manifest, 'dataClasses')) {
        ctx.current = { kind: 'class', name: c.name };
        const found = existingClasses.get(c.name);
        const row =
          found ??
          (await s.classes.create(
            ctx.audit,
            { name: c.name, label: c.label, fields: c.fields, viewConfig: c.viewConfig ?? null },
            { trx },
          ));
        ids.set(c.id, row.id);
        if (!found) ctx.created.dataClasses = (ctx.created.dataClasses ?? 0) + 1;
      }
      const classRows = new Map((await store.classes(trx)).map((c) => [c.name, c]));
      const classIds = new Map([...classRows].map(([name, c]) => [name, c.id]));
      const copies: Array<[ObjectRow, BundleWorkingCopy]> = [];
      const groups = new Map<string, string>();
      const write = { actor: ctx.actor, changeActor: ctx.changeActor, trx };
      for (const o of list<BundleObject>(manifest, 'dataObjects')) {
        ctx.current = { kind: 'object', name: o.key ?? o.id ?? `${o.className} without a key` };
        const classId = classIds.get(o.className);
        const existing = o.key && classId ? await store.keyed(trx, classId, o.key, o.locale ?? 'en') : undefined;
        if (existing) {
          ids.set(o.id, existing.id);
          continue;
        }
        const created = await s.objects.create(write, {
          className: o.className,
          locale: o.locale,
          key: o.key,
          parentId: o.parentId ? (ids.get(o.parentId) ?? null) : null,
          published: ctx.mayPublish && o.published,
          attributes: ctx.remap(o.attributes ?? {}) as Record<string, unknown>,
          translationGroupId: groups.get(o.translationGroupId),
        });
        ids.set(o.id, created.row.id);
        groups.set(o.translationGroupId, created.row.translation_group_id);
        ctx.created.dataObjects = (ctx.created.dataObjects ?? 0) + 1;
        if (o.workingCopy) copies.push([created.row, o.workingCopy]);
      }
      // Working copies once every object exists (a copy may move under an object created after it).
      // They pass the rules of a save to a working copy; the live row stays as the bundle had it.
      for (const [live, copy] of copies) {
        ctx.current = { kind: 'object', name: `${live.key ?? live.id} (working copy)` };
        const cls = [...classRows.values()].find((c) => c.id === live.class_id)!;
        const saved = await s.objects.workingCopies.save(trx, write, {
          live,
          cls,
          draft: null,
          input: {
            ...(copy.key !== undefined ? { key: copy.key } : {}),
            ...(copy.parentId !== undefined
              ? { parentId: copy.parentId ? (ids.get(copy.parentId) ?? null) : null }
              : {}),
            // The copy replaces the attributes, as its publish does: what it no longer has is cleared.
            attributes: {
              ...Object.fromEntries(Object.keys(live.attributes ?? {}).map((name) => [name, null])),
              ...(ctx.remap(copy.attributes ?? {}) as Record<string, unknown>),
            },
          },
        });
        if (saved) ctx.created.workingCopies = (ctx.created.workingCopies ?? 0) + 1;
      }
      ctx.current = null;
    },
  };
}
