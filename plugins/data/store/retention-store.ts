import type { Db, Tx } from '../../../kernel/database.ts';

export interface RetentionClassRow {
  id: string;
  name: string;
  retention_days: number;
}

/** The SQL of the object retention job. */
export class RetentionStore {
  constructor(private readonly deps: { db: Db }) {}

  classesWithRetention(): Promise<RetentionClassRow[]> {
    return this.deps.db('data_classes').where('retention_days', '>=', 1).orderBy('name').select('id', 'name', 'retention_days');
  }

  /**
   * Deletes up to `limit` objects of a class created before `cutoff`, oldest first, and the unique
   * values they held: a locale-scoped value goes with its row (one row per group and locale), a
   * shared value ('' scope) once no row of its translation group is left. Returns the deleted ids.
   */
  async deleteBatch(trx: Tx, classId: string, cutoff: Date, limit: number): Promise<string[]> {
    const deleted = await trx.raw<{ rows: Array<{ id: string; translation_group_id: string; locale: string }> }>(
      `delete from data_objects
        where id in (select id from data_objects where class_id = ? and created_at < ?
                      order by created_at, id limit ? for update skip locked)
        returning id, translation_group_id, locale`,
      [classId, cutoff, limit],
    );
    const rows = deleted.rows;
    if (rows.length === 0) return [];
    await trx.raw(
      `delete from data_unique_values u
        using (select unnest(?::uuid[]) as group_id, unnest(?::text[]) as locale) d
        where u.class_id = ? and u.translation_group_id = d.group_id
          and (u.scope = d.locale
               or (u.scope = '' and not exists (select 1 from data_objects o where o.translation_group_id = d.group_id)))`,
      [rows.map((r) => r.translation_group_id), rows.map((r) => r.locale), classId],
    );
    return rows.map((r) => r.id);
  }
}
