import type { Db, Tx } from '../../../kernel/index.ts';
import type { ClassRow, FieldDef } from '../model.ts';

type Q = Db | Tx;

/** One class by id, or null. Pass `lock: 'share'` inside an object write so field changes wait for it. */
export async function findClassById(q: Q, id: string, lock?: 'share' | 'update'): Promise<ClassRow | null> {
  const query = q<ClassRow>('data_classes').where({ id }).first();
  if (lock === 'share') query.forShare();
  if (lock === 'update') query.forUpdate();
  return (await query) ?? null;
}

export async function findClassByName(q: Q, name: string, lock?: 'share' | 'update'): Promise<ClassRow | null> {
  const query = q<ClassRow>('data_classes').where({ name }).first();
  if (lock === 'share') query.forShare();
  if (lock === 'update') query.forUpdate();
  return (await query) ?? null;
}

export async function listClasses(q: Q): Promise<ClassRow[]> {
  return q<ClassRow>('data_classes').orderBy('name');
}

export async function insertClass(
  q: Q,
  values: {
    name: string;
    label: string;
    fields: FieldDef[];
    viewConfig: Record<string, unknown> | null;
    retentionDays: number | null;
  },
): Promise<ClassRow> {
  const [row] = await q<ClassRow>('data_classes')
    .insert({
      name: values.name,
      label: values.label,
      fields: JSON.stringify(values.fields) as unknown as FieldDef[],
      view_config:
        values.viewConfig === null ? null : (JSON.stringify(values.viewConfig) as unknown as Record<string, unknown>),
      retention_days: values.retentionDays,
    })
    .returning('*');
  return row;
}

export async function updateClass(
  q: Q,
  id: string,
  values: Partial<{
    label: string;
    fields: FieldDef[];
    viewConfig: Record<string, unknown> | null;
    retentionDays: number | null;
  }>,
): Promise<ClassRow> {
  const patch: Record<string, unknown> = { updated_at: q.fn.now() };
  if (values.label !== undefined) patch.label = values.label;
  if (values.fields !== undefined) patch.fields = JSON.stringify(values.fields);
  if (values.viewConfig !== undefined)
    patch.view_config = values.viewConfig === null ? null : JSON.stringify(values.viewConfig);
  if (values.retentionDays !== undefined) patch.retention_days = values.retentionDays;
  const [row] = await q<ClassRow>('data_classes').where({ id }).update(patch).returning('*');
  return row;
}

export async function deleteClass(q: Q, id: string): Promise<void> {
  await q('data_classes').where({ id }).delete();
}

/** Objects of a class (every language row counts). */
export async function countClassObjects(q: Q, classId: string): Promise<number> {
  const row = await q('data_objects').where({ class_id: classId }).count<{ count: number }[]>('* as count').first();
  return Number(row?.count ?? 0);
}

export async function classHasObjects(q: Q, classId: string): Promise<boolean> {
  const row = await q('data_objects').where({ class_id: classId }).select('id').first();
  return row !== undefined;
}
