import { createHash } from 'node:crypto';
import type { Db, Tx } from '../../../kernel/index.ts';
import type { FieldDef } from '../model.ts';
import { INDEXED_TYPES, NAME_PATTERN } from '../services/field-definitions.ts';
import { partitionOf } from './object-partitions.ts';

type Q = Db | Tx;

/**
 * Per-field indexes, local to the class's partition of `data_objects` (the partition is the class, so
 * they need no `WHERE class_id = X`, and a class's indexes cost nothing to reads and writes of other
 * classes). Attribute filters and sorts use exactly the expression below, so the planner matches them:
 *   number   -> ((attributes->>'f')::numeric)
 *   boolean  -> ((attributes->>'f')::boolean)
 *   others   -> ((attributes->>'f') COLLATE "C")  (dates and datetimes are stored as UTC ISO text, so
 *               byte order is time order; texts sort by code point)
 * Two indexes per field: `(expr, id)` for the admin routes and `(expr, created_at, id) WHERE published`
 * for the public read path; array fields get one GIN index for element lookups; plus extended statistics
 * on the expression. DDL takes no bind parameters, so the field name and class id are inlined, after
 * checking them against the identifier and uuid patterns.
 */
export function indexedExpression(field: FieldDef, quotedName: string): string {
  const value = `(attributes ->> ${quotedName})`;
  if (field.type === 'number') return `(${value}::numeric)`;
  if (field.type === 'boolean') return `(${value}::boolean)`;
  return `(${value} COLLATE "C")`;
}

export const isIndexed = (field: FieldDef) => INDEXED_TYPES.has(field.type) || field.type === 'array';

const kindOf = (field: FieldDef) =>
  field.type === 'number' || field.type === 'boolean' || field.type === 'array' ? field.type : 'text';
const classHex = (classId: string) => partitionOf(classId).slice('data_objects_c'.length);

/** One index or statistics object a field needs; `create` takes `CONCURRENTLY ` or ''. */
export interface FieldIndexSpec {
  name: string;
  kind: 'index' | 'statistics';
  create(concurrently: boolean): string;
}

/**
 * What the indexed fields of a class need on its partition. Names carry the class id and a hash of
 * the field's name and expression kind, so a retyped field gets a new index (the old one is stale).
 */
export function fieldIndexSpecs(classId: string, fields: readonly FieldDef[]): FieldIndexSpec[] {
  const table = partitionOf(classId);
  const cls = classHex(classId);
  const out: FieldIndexSpec[] = [];
  for (const field of fields.filter(isIndexed)) {
    if (!NAME_PATTERN.test(field.name)) throw new Error('refusing to build an index from an unchecked name');
    const h = createHash('md5')
      .update(`${kindOf(field)}:${field.name}`)
      .digest('hex')
      .slice(0, 10);
    const all = `data_objects_f_${cls}_${h}`;
    const published = `data_objects_p_${cls}_${h}`;
    const cc = (c: boolean) => (c ? 'CONCURRENTLY ' : '');
    if (field.type === 'array') {
      // Element lookups (`contains` on arrays) use jsonb containment, served by a GIN index.
      out.push({
        name: all,
        kind: 'index',
        create: (c) =>
          `CREATE INDEX ${cc(c)}IF NOT EXISTS "${all}" ON "${table}" USING gin ((attributes -> '${field.name}') jsonb_path_ops)`,
      });
      continue;
    }
    const expr = indexedExpression(field, `'${field.name}'`);
    out.push({
      name: all,
      kind: 'index',
      create: (c) => `CREATE INDEX ${cc(c)}IF NOT EXISTS "${all}" ON "${table}" (${expr}, id)`,
    });
    // The public index also carries created_at: the common public read, "field = value, newest
    // first" (the default order), then walks it in order and stops after one page; a sort on the
    // field itself still uses its leading column.
    out.push({
      name: published,
      kind: 'index',
      create: (c) =>
        `CREATE INDEX ${cc(c)}IF NOT EXISTS "${published}" ON "${table}" (${expr}, created_at, id) WHERE published`,
    });
    // Without statistics on the expression the planner guesses 0.5% for any attribute value and
    // picks slow plans for filtered, sorted queries.
    const stats = `data_objects_s_${cls}_${h}`;
    out.push({
      name: stats,
      kind: 'statistics',
      create: () => `CREATE STATISTICS IF NOT EXISTS "${stats}" ON ${expr} FROM "${table}"`,
    });
  }
  return out;
}

/** Field indexes and statistics objects that exist on a class's partition (`valid: false`: a failed concurrent build). */
export async function existingFieldIndexes(
  q: Q,
  classId: string,
): Promise<Array<{ name: string; kind: 'index' | 'statistics'; valid: boolean }>> {
  const table = partitionOf(classId);
  const { rows } = await q.raw(
    `SELECT c.relname AS name, 'index' AS kind, i.indisvalid AS valid
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = to_regclass(?) AND (c.relname LIKE 'data\\_objects\\_f\\_%' OR c.relname LIKE 'data\\_objects\\_p\\_%')
     UNION ALL
     SELECT stxname, 'statistics', true FROM pg_statistic_ext WHERE stxrelid = to_regclass(?)`,
    [table, table],
  );
  return rows;
}

/**
 * Brings a partition's field indexes in line with the field list inside the caller's transaction:
 * drops what no field needs any more and creates what is missing. For an empty partition only (the
 * class service checks): plain CREATE INDEX blocks writes to the partition until commit.
 */
export async function syncFieldIndexes(q: Q, classId: string, fields: readonly FieldDef[]): Promise<void> {
  const wanted = fieldIndexSpecs(classId, fields);
  const names = new Set(wanted.map((s) => s.name));
  for (const old of await existingFieldIndexes(q, classId)) {
    if (names.has(old.name) && old.valid) continue;
    await q.raw(
      old.kind === 'index' ? `DROP INDEX IF EXISTS "${old.name}"` : `DROP STATISTICS IF EXISTS "${old.name}"`,
    );
  }
  for (const spec of wanted) await q.raw(spec.create(false));
}

/** Valid field index names of a class (tests and the bench check them). */
export async function listFieldIndexes(q: Q, classId: string): Promise<string[]> {
  return (await existingFieldIndexes(q, classId)).filter((i) => i.kind === 'index' && i.valid).map((i) => i.name);
}
