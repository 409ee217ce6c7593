import { type Db, type PluginContributions, type Tx, unicodeLowerSql } from '../../kernel/index.ts';
import type { ObjectRow } from './model.ts';
import { changeActorOf } from './services/actor.ts';
import { findClassById } from './store/class-store.ts';
import type { DataServices } from './services/index.ts';

type Source = PluginContributions['dataSubjectSources'];

/** Rows one search, export or erase looks at, at most (an erase past it: run it again). */
const SCAN_CAP = 10_000;
/** Depth of attribute values walked when naming the matched fields (values are stored bounded). */
const MAX_DEPTH = 32;

interface MatchRow extends ObjectRow {
  class_name: string;
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
  const matching = async (identifier: string, classes: readonly string[] | undefined, q: Tx | Db) => {
    fold ??= unicodeLowerSql(db);
    const query = objectMatchQuery(q, await fold, identifier, classes).limit(SCAN_CAP);
    return (await query) as MatchRow[];
  };

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
      return (await names).flatMap((name) => [row.attributes[name]].flat().filter((v) => typeof v === 'string'));
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
            label: `${row.class_name}/${row.key ?? row.id} (${row.locale})`,
            class: row.class_name,
            key: row.key,
            locale: row.locale,
            matched: matchedFields(row.attributes, needle),
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
          const deleted = await db.transaction(async (trx) => {
            const current = (await trx('data_objects')
              .where({ id: row.id, class_id: row.class_id })
              .forUpdate()
              .first()) as ObjectRow | undefined;
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

/** The text of a whole JSON string value as `attributes::text` shows it (quotes and escapes), for LIKE. */
export function jsonStringPattern(value: string): string {
  return `%${JSON.stringify(value).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Objects (of `classes`, or every class) whose attributes hold `identifier` as a whole string value
 * anywhere inside, case folded by `fold` (the same rule as the trigram index of migration 0004, so the
 * LIKE is answered from that index on every class partition). The LIKE is the cheap filter: the value
 * in quotes as the JSON text shows it (so `"` and `\` in an identifier are found, and `%` and `_` are
 * only characters); the JSON path test then keeps whole string values only (not keys, not a part of a
 * longer value). Newest first.
 */
export function objectMatchQuery(
  q: Db | Tx,
  fold: (expression: string) => string,
  identifier: string,
  classes?: readonly string[],
) {
  const needle = identifier.trim();
  const text = fold('o.attributes::text');
  const query = q('data_objects as o')
    .join('data_classes as c', 'c.id', 'o.class_id')
    .select('o.*', 'c.name as class_name')
    .whereRaw(`${text} LIKE ${fold('?::text')}`, [jsonStringPattern(needle)])
    .whereRaw(
      `jsonb_path_exists((${text})::jsonb, '$.** \\? (@ == $v)', jsonb_build_object('v', ${fold('?::text')}))`,
      [needle],
    )
    .orderBy('o.updated_at', 'desc');
  if (classes?.length) void query.whereIn('c.name', classes as string[]);
  return query;
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

/**
 * One statement, planned once, asking each reference's question through the trigram index of
 * migration 0004 (the LIKE pattern is made in SQL from the reference, its `\`, `%` and `_` escaped,
 * and from its JSON text, so a path with a quote or a backslash is found as the attributes show it).
 */
export async function objectsHolding(
  q: Db | Tx,
  fold: (expression: string) => string,
  refs: readonly string[],
  exclude: readonly string[],
): Promise<Array<{ ref: string; holder: string }>> {
  const text = fold('o.attributes::text');
  const likeEscaped = (sql: string) => `replace(replace(replace(${sql}, '\\', '\\\\'), '%', '\\%'), '_', '\\_')`;
  const pattern = `'%' || ${likeEscaped(`trim(both '"' from to_json(f.ref)::text)`)} || '%'`;
  const { rows } = await q.raw(
    `SELECT f.ref, h.holder FROM unnest(?::text[]) AS f(ref)
      CROSS JOIN LATERAL (
        SELECT c.name || '/' || coalesce(o.key, o.id::text) AS holder
          FROM data_objects o JOIN data_classes c ON c.id = o.class_id
         WHERE ${text} LIKE ${fold(pattern)}
           AND NOT (o.id = ANY(?::uuid[]))
         LIMIT 1) h`,
    [refs as string[], exclude as string[]],
  );
  return rows.map((r: { ref: string; holder: string }) => ({ ref: r.ref, holder: `object ${r.holder}` }));
}
