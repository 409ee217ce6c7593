import type { Db, Tx } from '../../../kernel/index.ts';

type Q = Db | Tx;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PARTITION = /^data_objects_c[0-9a-f]{32}$/;

/**
 * `data_objects` is partitioned by class (migration 0002): one partition per class, named after the
 * class id. DDL takes no bind parameters, so class ids are inlined, only after matching the uuid pattern.
 */
export function partitionOf(classId: string): string {
  if (!UUID.test(classId)) throw new Error('refusing to name a partition after an unchecked class id');
  return `data_objects_c${classId.replace(/-/g, '')}`;
}

/** The class id a partition name stands for, or null for any other name. */
export function classOfPartition(name: string): string | null {
  if (!PARTITION.test(name)) return null;
  const h = name.slice('data_objects_c'.length);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The name of the unique key index of a class's partition: a violation reports the partition's index,
 * so the object service recognises "key in use" by this name (the parent index is `data_objects_key`).
 */
export const isKeyIndexName = (name: string | undefined): boolean =>
  name === 'data_objects_key' || (name !== undefined && /^data_objects_c[0-9a-f]{32}_key$/.test(name));

/**
 * Creates a class's partition: a standalone table with the parent's columns and a CHECK that matches
 * the partition bound, then ATTACH. ATTACH takes only SHARE UPDATE EXCLUSIVE on the parent (CREATE
 * TABLE ... PARTITION OF would take ACCESS EXCLUSIVE), so reads and writes of other classes go on; the
 * CHECK spares it the scan that proves the bound. The key index is created first under a name of ours
 * (see `isKeyIndexName`); ATTACH adopts it and builds the parent's other indexes on the empty table.
 */
export async function createClassPartition(q: Q, classId: string): Promise<void> {
  const t = partitionOf(classId);
  await q.raw(`CREATE TABLE "${t}" (LIKE data_objects INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
  await q.raw(`ALTER TABLE "${t}" ADD CONSTRAINT "${t}_class" CHECK (class_id = '${classId}')`);
  await q.raw(`CREATE UNIQUE INDEX "${t}_key" ON "${t}" (class_id, key, locale) WHERE key IS NOT NULL`);
  await q.raw(`ALTER TABLE data_objects ATTACH PARTITION "${t}" FOR VALUES IN ('${classId}')`);
}

/** Attached partitions as (table name, class id). */
export async function listPartitions(q: Q): Promise<Array<{ table: string; classId: string }>> {
  const rows: Array<{ name: string }> = (
    await q.raw(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'data_objects'::regclass`,
    )
  ).rows;
  return rows.flatMap((r) => {
    const classId = classOfPartition(r.name);
    return classId ? [{ table: r.name, classId }] : [];
  });
}
