import { randomUUID } from 'node:crypto';
import type { Db } from '../../../kernel/database.ts';
import type { ObjectRow } from '../model.ts';
import { createClassPartition } from '../store/object-partitions.ts';

/**
 * Direct inserts for the workflow, preview and retention specs: they are about objects that exist
 * (and about their age), not about how objects are created, so they do not go through the object API.
 */
export async function seedClass(
  db: Db,
  opts: { name?: string; retentionDays?: number | null } = {},
): Promise<{ id: string; name: string }> {
  const name = opts.name ?? `cls_${randomUUID().slice(0, 8)}`;
  const [row] = await db('data_classes')
    .insert({
      name,
      label: name,
      fields: JSON.stringify([{ name: 'title', type: 'text' }]),
      retention_days: opts.retentionDays ?? null,
    })
    .returning(['id', 'name']);
  // Objects are stored in their class's partition, which the class service creates with the class.
  await createClassPartition(db, row.id);
  return row;
}

export async function seedObject(
  db: Db,
  classId: string,
  opts: {
    workflowState?: string | null;
    published?: boolean;
    createdAt?: Date;
    locale?: string;
    translationGroupId?: string;
    title?: string;
  } = {},
): Promise<ObjectRow> {
  const [row] = await db('data_objects')
    .insert({
      class_id: classId,
      translation_group_id: opts.translationGroupId ?? randomUUID(),
      locale: opts.locale ?? 'en',
      published: opts.published ?? false,
      workflow_state: opts.workflowState ?? null,
      attributes: JSON.stringify({ title: opts.title ?? 'a title' }),
      ...(opts.createdAt ? { created_at: opts.createdAt, updated_at: opts.createdAt } : {}),
    })
    .returning('*');
  return row;
}

/** `count` objects of a class created at `createdAt`, in one statement. */
export async function seedObjects(db: Db, classId: string, count: number, createdAt: Date): Promise<void> {
  await db.raw(
    `insert into data_objects (class_id, translation_group_id, locale, attributes, created_at, updated_at)
     select ?, gen_random_uuid(), 'en', jsonb_build_object('title', 'old ' || n), ?, ?
       from generate_series(1, ?) n`,
    [classId, createdAt, createdAt, count],
  );
}
