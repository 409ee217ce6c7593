import { type Db, type PluginContributions, type Tx, unicodeLowerSql } from '../../kernel/index.ts';
import type { ObjectRow } from './model.ts';
import { changeActorOf } from './services/actor.ts';
import { findClassById } from './store/class-store.ts';
import { deleteDraft } from './store/draft-store.ts';
import {
  draftAttributesOf,
  draftMatchQuery,
  lockObjectRow,
  objectMatchQuery,
  objectsHolding,
} from './store/subject-store.ts';
import type { DataServices } from './services/index.ts';

type Source = PluginContributions['dataSubjectSources'];

/** Rows one search, export or erase looks at, at most (an erase past it: run it again). */
const SCAN_CAP = 10_000;
/** Depth of attribute values walked when naming the matched fields (values are stored bounded). */
const MAX_DEPTH = 32;

interface MatchRow extends ObjectRow {
  class_name: string;
  /** The working copy's attributes when the object has one (found in the copy, the live row, or both). */
  draft_attributes?: Record<string, unknown> | null;
  /** True when only the working copy holds the identifier: an erase discards the copy, the live row stays. */
  copy_only?: boolean;
}

/**
 * Objects as a data-subject source (registry `dataSubjectSources`, collected by the data-subject
 * plugin): rows of any class (or of `options.classes`) whose attributes hold the identifier as a whole
 * string value anywhere inside, components and arrays included, compared without case. Language
 * versions are rows of their own, so translations are found too. Files in asset fields are reported so
 * the collector erases them first; a row whose file could not be deleted stays.
 */
export function objectDataSubjectSource(services: DataServices, db: Db): Source {
  let fold: Promise<(expression: string) => string> | undefined;
  // Live rows holding the identifier, then objects whose working copy alone holds it; every row
  // carries its working copy's attributes when it has one (personal data in a draft is found too).
  const matching = async (identifier: string, classes: readonly string[] | undefined, q: Tx | Db) => {
    fold ??= unicodeLowerSql(db);
    const f = await fold;
    const live = (await objectMatchQuery(q, f, identifier, classes).limit(SCAN_CAP)) as MatchRow[];
    const copies = (await draftMatchQuery(q, f, identifier, classes).limit(SCAN_CAP)) as Array<
      MatchRow & { draft_attributes: Record<string, unknown> }
    >;
    const byId = new Map(copies.map((c) => [c.id, c]));
    const draftOf = await draftAttributesOf(
      q,
      live.map((r) => r.id),
    );
    const liveIds = new Set(live.map((r) => r.id));
    for (const row of live) row.draft_attributes = draftOf.get(row.id) ?? null;
    const copyOnly = [...byId.values()].filter((c) => !liveIds.has(c.id)).map((c) => ({ ...c, copy_only: true }));
    return [...live, ...copyOnly].slice(0, SCAN_CAP);
  };
  /** The fields that held the identifier: live ones by name, the working copy's as `workingCopy.<name>`. */
  const matchedIn = (row: MatchRow, needle: string) => [
    ...(row.copy_only ? [] : matchedFields(row.attributes, needle)),
    ...(row.draft_attributes ? matchedFields(row.draft_attributes, needle).map((m) => `workingCopy.${m}`) : []),
  ];

  // Asset fields per class, read once per call (a person's rows are spread over few classes).
  const fileReader = () => {
    const assetFields = new Map<string, Promise<string[]>>();
    return async (row: MatchRow): Promise<string[]> => {
      let names = assetFields.get(row.class_id);
      if (!names) {
        names = findClassById(db, row.class_id).then((cls) =>
          (cls?.fields ?? [])
            .filter((f) => f.type === 'asset' || (f.type === 'array' && f.of === 'asset'))
            .map((f) => f.name),
        );
        assetFields.set(row.class_id, names);
      }
      const values = (attributes: Record<string, unknown>) =>
        names.then((list) => list.flatMap((name) => [attributes[name]].flat().filter((v) => typeof v === 'string')));
      // A file only the working copy names is the person's too (an erase of the copy-only object keeps
      // the live row's files, which the live row does not name the person in).
      const files = row.copy_only ? [] : await values(row.attributes);
      const copyFiles = row.draft_attributes ? await values(row.draft_attributes) : [];
      return [...new Set([...files, ...copyFiles])] as string[];
    };
  };

  return {
    kind: 'objects',
    plugin: 'data',
    stage: 'records',
    async find(identifier, options, trx) {
      const rows = await matching(identifier, options.classes, trx ?? db);
      const filesOf = fileReader();
      const limit = options.limit ?? 100;
      const needle = identifier.trim().toLowerCase();
      const items = [];
      const linked = new Set<string>();
      for (const [i, row] of rows.entries()) {
        const files = await filesOf(row);
        for (const f of files) linked.add(f);
        if (i < limit)
          items.push({
            id: row.id,
            at: new Date(row.updated_at).toISOString(),
            label: `${row.class_name}/${row.key ?? row.id} (${row.locale})${row.copy_only ? ' (working copy)' : ''}`,
            class: row.class_name,
            key: row.key,
            locale: row.locale,
            matched: matchedIn(row, needle),
            files,
          });
      }
      return {
        kind: 'objects',
        count: rows.length,
        items,
        linkedFiles: [...linked],
        ...(options.everyId ? { ids: rows.map((r) => r.id) } : {}),
      };
    },
    async *records(identifier, options) {
      for (const row of await matching(identifier, options.classes, db))
        yield {
          id: row.id,
          class: row.class_name,
          key: row.key,
          locale: row.locale,
          path: row.path,
          published: row.published,
          createdAt: new Date(row.created_at).toISOString(),
          updatedAt: new Date(row.updated_at).toISOString(),
          attributes: row.attributes,
          ...(row.draft_attributes ? { workingCopy: { attributes: row.draft_attributes } } : {}),
        };
    },
    async erase(identifier, options, input) {
      const rows = await matching(identifier, options.classes, db);
      const filesOf = fileReader();
      const kept: Array<{ id: string; label: string; reason: string }> = [];
      let erased = 0;
      for (const row of rows) {
        const label = `${row.class_name}/${row.key ?? row.id}`;
        const failed = (await filesOf(row)).find((f) => input.failedFiles.has(f));
        if (failed !== undefined) {
          kept.push({
            id: row.id,
            label,
            reason: `file ${failed} could not be deleted: ${input.failedFiles.get(failed)}`,
          });
          continue;
        }
        if (input.dryRun) {
          erased++;
          continue;
        }
        try {
          if (row.copy_only) {
            // Only the working copy names the person: it is discarded, the live object stays.
            if (await db.transaction((trx) => deleteDraft(trx, row.id))) erased++;
            continue;
          }
          const deleted = await db.transaction(async (trx) => {
            const current = await lockObjectRow(trx, row.id, row.class_id);
            // Deleted by someone else since the search: nothing to do, nothing to announce or count.
            if (!current) return false;
            await services.objects.deleteRows(trx, row.class_name, [current], {
              actor: input.actor,
              changeActor: changeActorOf(input.actor),
            });
            return true;
          });
          if (deleted) erased++;
        } catch (err) {
          kept.push({ id: row.id, label, reason: err instanceof Error ? err.message : String(err) });
        }
      }
      return { kind: 'objects', erased, kept };
    },
  };
}

/** Dotted paths of the string values equal to `needle` (any case), walked without recursion. */
export function matchedFields(attributes: Record<string, unknown>, needle: string): string[] {
  const out: string[] = [];
  const stack: Array<[unknown, string, number]> = Object.entries(attributes).map(([k, v]) => [v, k, 0]);
  while (stack.length) {
    const [value, path, depth] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.toLowerCase() === needle) out.push(path);
    } else if (value && typeof value === 'object' && depth < MAX_DEPTH) {
      for (const [k, v] of Object.entries(value)) stack.push([v, `${path}.${k}`, depth + 1]);
    }
  }
  return out.sort();
}

/**
 * Objects as holders of library file references (registry `assetReferences`): any object outside
 * `except.objects` whose attribute text holds the reference anywhere (a whole asset value, a path
 * inside a rich text or a URL), case folded as the finder above. A longer value that merely contains a
 * path counts too: a file is kept rather than erased under a page of text that may show it.
 */
export function objectAssetReferences(db: Db): PluginContributions['assetReferences'] {
  let fold: Promise<(expression: string) => string> | undefined;
  return {
    plugin: 'data',
    async holdings(refs, except) {
      if (!refs.length) return [];
      fold ??= unicodeLowerSql(db);
      return objectsHolding(db, await fold, refs, except.get('objects') ?? []);
    },
  };
}
