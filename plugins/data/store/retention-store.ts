import type { Db, Tx } from '../../../kernel/index.ts';

export interface RetentionClassRow {
  id: string;
  name: string;
  retention_days: number;
}

/** The SQL of the object retention job. */
export class RetentionStore {
  constructor(private readonly deps: { db: Db }) {}

  classesWithRetention(): Promise<RetentionClassRow[]> {
    return this.deps
      .db('data_classes')
      .where('retention_days', '>=', 1)
      .orderBy('name')
      .select('id', 'name', 'retention_days');
  }

  /**
   * Deletes up to `limit` objects of a class created before `cutoff`, oldest first, and returns their
   * ids. The unique values they held go in the same statement: the `data_objects` delete trigger
   * (migration 0002) releases a row's locale-scoped claims, and shared ones with its group's last row.
   * SKIP LOCKED leaves rows an editor is writing to the next batch or run. The batch is picked once
   * (materialized): as a plain IN subquery the planner may rescan it and delete past the limit.
   */
  async deleteBatch(trx: Tx, classId: string, cutoff: Date, limit: number): Promise<string[]> {
    const deleted = await trx.raw<{ rows: Array<{ id: string }> }>(
      `with picked as materialized (
         select id from data_objects where class_id = ? and created_at < ?
          order by created_at, id limit ? for update skip locked)
       delete from data_objects where class_id = ? and id in (select id from picked)
       returning id`,
      [classId, cutoff, limit, classId],
    );
    return deleted.rows.map((r) => r.id);
  }
}
