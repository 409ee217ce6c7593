import { createHash } from 'node:crypto';
import type { Db, Tx } from '../../../kernel/index.ts';
import type { FieldDef } from '../model.ts';
import { INDEXED_TYPES, NAME_PATTERN } from '../services/field-definitions.ts';

type Q = Db | Tx;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Per-class, per-field partial expression indexes on `data_objects`. Attribute filters and sorts use
 * exactly the expression below, so the planner matches them with these indexes:
 *   number   -> ((attributes->>'f')::numeric)
 *   boolean  -> ((attributes->>'f')::boolean)
 *   others   -> ((attributes->>'f') COLLATE "C")  (dates and datetimes are stored as UTC ISO text, so
 *               byte order is time order; texts sort by code point)
 * Two indexes per field: one for the admin routes (`WHERE class_id = X`) and one for the public read
 * path (`(expr, created_at, id) WHERE class_id = X AND published`). Array fields get one GIN index for
 * element lookups. DDL takes no bind parameters, so the field name and class
 * id are inlined, after checking them against the identifier and uuid patterns.
 */
export function indexedExpression(field: FieldDef, quotedName: string): string {
  const value = `(attributes ->> ${quotedName})`;
  if (field.type === 'number') return `(${value}::numeric)`;
  if (field.type === 'boolean') return `(${value}::boolean)`;
  return `(${value} COLLATE "C")`;
}

export const isIndexed = (field: FieldDef) => INDEXED_TYPES.has(field.type) || field.type === 'array';

function names(classId: string, field: string): { all: string; published: string; stats: string } {
  const cls = classId.replace(/-/g, '');
  const f = createHash('md5').update(field).digest('hex').slice(0, 10);
  return { all: `data_objects_f_${cls}_${f}`, published: `data_objects_p_${cls}_${f}`, stats: `data_objects_s_${cls}_${f}` };
}

function checked(classId: string, field: FieldDef): void {
  if (!UUID.test(classId) || !NAME_PATTERN.test(field.name)) throw new Error('refusing to build an index from an unchecked name');
}

export async function createFieldIndexes(q: Q, classId: string, fields: readonly FieldDef[]): Promise<void> {
  for (const field of fields.filter(isIndexed)) {
    checked(classId, field);
    const n = names(classId, field.name);
    const expr = indexedExpression(field, `'${field.name}'`);
    if (field.type === 'array') {
      // Element lookups (`contains` on arrays) use jsonb containment, served by a GIN index.
      await q.raw(`CREATE INDEX IF NOT EXISTS "${n.all}" ON data_objects USING gin ((attributes -> '${field.name}') jsonb_path_ops) WHERE class_id = '${classId}'`);
      continue;
    }
    await q.raw(`CREATE INDEX IF NOT EXISTS "${n.all}" ON data_objects (${expr}, id) WHERE class_id = '${classId}'`);
    // The public index also carries created_at: the common public read, "field = value, newest
    // first" (the default order), then walks it in order and stops after one page; a sort on the
    // field itself still uses its leading column.
    await q.raw(`CREATE INDEX IF NOT EXISTS "${n.published}" ON data_objects (${expr}, created_at, id) WHERE class_id = '${classId}' AND published`);
    // The planner does not use a partial index's statistics to estimate a filter; without these it
    // guesses 0.5% for any attribute value and picks slow plans for filtered, sorted queries.
    await q.raw(`CREATE STATISTICS IF NOT EXISTS "${n.stats}" ON ${expr} FROM data_objects`);
  }
}

export async function dropFieldIndexes(q: Q, classId: string, fieldNames: readonly string[]): Promise<void> {
  for (const name of fieldNames) {
    if (!UUID.test(classId) || !NAME_PATTERN.test(name)) continue;
    const n = names(classId, name);
    await q.raw(`DROP INDEX IF EXISTS "${n.all}"`);
    await q.raw(`DROP INDEX IF EXISTS "${n.published}"`);
    await q.raw(`DROP STATISTICS IF EXISTS "${n.stats}"`);
  }
}

/** Index names of a class as the catalog lists them (tests and the bench check them). */
export async function listFieldIndexes(q: Q, classId: string): Promise<string[]> {
  const cls = classId.replace(/-/g, '');
  const rows = await q('pg_indexes')
    .where({ tablename: 'data_objects' })
    .where((w) => w.where('indexname', 'like', `data_objects_f_${cls}_%`).orWhere('indexname', 'like', `data_objects_p_${cls}_%`))
    .select('indexname');
  return rows.map((r: { indexname: string }) => r.indexname);
}
