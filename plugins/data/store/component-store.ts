import type { Db, Tx } from '../../../kernel/index.ts';
import type { ComponentRow, FieldDef } from '../model.ts';

type Q = Db | Tx;

export async function findComponentById(q: Q, id: string, lock?: 'update'): Promise<ComponentRow | null> {
  const query = q<ComponentRow>('data_components').where({ id }).first();
  if (lock === 'update') query.forUpdate();
  return (await query) ?? null;
}

export async function listComponents(q: Q): Promise<ComponentRow[]> {
  return q<ComponentRow>('data_components').orderBy('name');
}

export async function insertComponent(
  q: Q,
  values: { name: string; label: string; fields: FieldDef[] },
): Promise<ComponentRow> {
  const [row] = await q<ComponentRow>('data_components')
    .insert({ name: values.name, label: values.label, fields: JSON.stringify(values.fields) as unknown as FieldDef[] })
    .returning('*');
  return row;
}

export async function updateComponent(
  q: Q,
  id: string,
  values: { label?: string; fields?: FieldDef[] },
): Promise<ComponentRow> {
  const patch: Record<string, unknown> = { updated_at: q.fn.now() };
  if (values.label !== undefined) patch.label = values.label;
  if (values.fields !== undefined) patch.fields = JSON.stringify(values.fields);
  const [row] = await q<ComponentRow>('data_components').where({ id }).update(patch).returning('*');
  return row;
}

export async function deleteComponent(q: Q, id: string): Promise<void> {
  await q('data_components').where({ id }).delete();
}

/** Classes with a field (or array of) using the component, and how many objects they hold. */
export async function componentUsage(
  q: Q,
  name: string,
): Promise<{ classes: Array<{ id: string; name: string }>; objectCount: number }> {
  const classes: Array<{ id: string; name: string }> = await q('data_classes')
    .whereRaw(`exists (select 1 from jsonb_array_elements(fields) f where f->>'component' = ?)`, [name])
    .orderBy('name')
    .select('id', 'name');
  if (classes.length === 0) return { classes, objectCount: 0 };
  const row = await q('data_objects')
    .whereIn(
      'class_id',
      classes.map((c) => c.id),
    )
    .count<{ count: number }[]>('* as count')
    .first();
  return { classes, objectCount: Number(row?.count ?? 0) };
}

/** Classes whose relation fields point at the class name. */
export async function classesReferencing(q: Q, className: string, exceptId: string): Promise<string[]> {
  const rows: Array<{ name: string }> = await q('data_classes')
    .whereNot({ id: exceptId })
    .whereRaw(`exists (select 1 from jsonb_array_elements(fields) f where f->'relation'->>'class' = ?)`, [className])
    .select('name');
  return rows.map((r) => r.name);
}
