import type { Db } from '../../../kernel/index.ts';
import type { ClassRow, ComponentRow, ObjectRow } from '../model.ts';

/** Reads of the website export (the bundles plugin's registry `websiteBundleParts`). */
export class BundleStore {
  constructor(private readonly db: Db) {}

  classes(q: Db = this.db): Promise<ClassRow[]> {
    return q('data_classes').select('*').orderBy('name');
  }

  components(): Promise<ComponentRow[]> {
    return this.db('data_components').select('*').orderBy('name');
  }

  /** The object of a class with this key and locale (keys are unique per class and locale). */
  keyed(q: Db, classId: string, key: string, locale: string): Promise<{ id: string } | undefined> {
    return q('data_objects').where({ class_id: classId, key, locale }).first('id');
  }

  /** How many of these keys exist in the class named `className`. */
  async countKeyed(className: string, keys: readonly string[]): Promise<number> {
    if (!keys.length) return 0;
    const row = await this.db('data_objects as o')
      .join('data_classes as c', 'c.id', 'o.class_id')
      .where('c.name', className)
      .whereIn('o.key', keys as string[])
      .count('* as n')
      .first();
    return Number(row?.n ?? 0);
  }

  /** Objects of these classes, or only these ids; oldest first so parents come before children. */
  objects(by: { classIds?: readonly string[]; ids?: readonly string[] }): Promise<ObjectRow[]> {
    const q = this.db('data_objects')
      .select('*')
      .orderBy([{ column: 'created_at' }, { column: 'id' }]);
    if (by.classIds) void q.whereIn('class_id', by.classIds as string[]);
    if (by.ids) void q.whereIn('id', by.ids as string[]);
    return q;
  }
}
