import type { Db, Tx } from '../../../kernel/index.ts';

type Q = Db | Tx;

/**
 * Where objects live. `data_objects` is partitioned by class, so a query by id alone would plan and
 * probe every class's partition; `data_object_registry` (id -> class, group -> class; kept by the
 * triggers of migration 0002) tells which partition to name, and queries add `class_id = ?` so the
 * planner prunes to that partition.
 *
 * An object's class never changes, so a remembered id -> class answer never turns wrong: a deleted id
 * just finds no row. The cache keeps only what was read outside a transaction (committed), at most
 * `capacity` entries, least recently used first out.
 */
export class ObjectLocator {
  private readonly ids = new Map<string, string>();
  private readonly groups = new Map<string, string>();

  constructor(private readonly capacity = 100_000) {}

  /** id -> class id of the ids that exist (unknown ids are absent). */
  async classesOf(q: Q, ids: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const misses: string[] = [];
    for (const id of ids) {
      const hit = this.hit(this.ids, id);
      if (hit) out.set(id, hit);
      else misses.push(id);
    }
    if (misses.length === 0) return out;
    const rows: Array<{ id: string; class_id: string }> = await q('data_object_registry')
      .whereIn('id', [...new Set(misses)])
      .select('id', 'class_id');
    for (const r of rows) {
      out.set(r.id, r.class_id);
      if (this.cacheable(q)) this.remember(this.ids, r.id, r.class_id);
    }
    return out;
  }

  /** The class of a translation group, or null when no row of it exists. */
  async classOfGroup(q: Q, groupId: string): Promise<string | null> {
    const hit = this.hit(this.groups, groupId);
    if (hit) return hit;
    const row: { class_id: string } | undefined = await q('data_object_registry')
      .where({ translation_group_id: groupId })
      .first('class_id');
    if (!row) return null;
    if (this.cacheable(q)) this.remember(this.groups, groupId, row.class_id);
    return row.class_id;
  }

  private cacheable(q: Q): boolean {
    return this.capacity > 0 && (q as Tx).isTransaction !== true;
  }

  private hit(map: Map<string, string>, key: string): string | undefined {
    const value = map.get(key);
    if (value !== undefined) {
      map.delete(key);
      map.set(key, value);
    }
    return value;
  }

  private remember(map: Map<string, string>, key: string, value: string): void {
    map.delete(key);
    map.set(key, value);
    if (map.size > this.capacity) map.delete(map.keys().next().value!);
  }
}

/** A locator without memory: every lookup asks the registry (writes, and callers without a cache). */
export const REGISTRY = new ObjectLocator(0);

/** The class name of each referenced object that exists; one query for all ids (relation checks). */
export async function classNamesOfObjects(q: Q, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows: Array<{ id: string; class_name: string }> = await q('data_object_registry as r')
    .join('data_classes as c', 'c.id', 'r.class_id')
    .whereIn('r.id', [...new Set(ids)])
    .select('r.id', 'c.name as class_name');
  return new Map(rows.map((r) => [r.id, r.class_name]));
}
