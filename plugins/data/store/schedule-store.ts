import type { Db, Tx } from '../../../kernel/index.ts';

type Q = Db | Tx;

/** When an object goes live and offline (`data_object_schedules`), and who set it. */
export interface ScheduleRow {
  object_id: string;
  class_id: string;
  publish_at: Date | null;
  unpublish_at: Date | null;
  scheduled_by: string;
  scheduled_by_label: string | null;
  created_at: Date;
  updated_at: Date;
}

export type ScheduleValues = Pick<
  ScheduleRow,
  'object_id' | 'class_id' | 'publish_at' | 'unpublish_at' | 'scheduled_by' | 'scheduled_by_label'
>;

export async function findSchedule(q: Q, objectId: string): Promise<ScheduleRow | null> {
  return (await q<ScheduleRow>('data_object_schedules').where({ object_id: objectId }).first()) ?? null;
}

export async function saveSchedule(q: Q, values: ScheduleValues): Promise<ScheduleRow> {
  const [row] = await q<ScheduleRow>('data_object_schedules')
    .insert({ ...values, updated_at: q.fn.now() } as never)
    .onConflict('object_id')
    .merge(['publish_at', 'unpublish_at', 'scheduled_by', 'scheduled_by_label', 'updated_at'])
    .returning('*');
  return row;
}

export async function deleteSchedule(q: Q, objectId: string): Promise<boolean> {
  return (await q('data_object_schedules').where({ object_id: objectId }).delete()) > 0;
}

/** Every schedule, soonest first. */
export async function listSchedules(q: Q, opts: { limit: number; offset: number }): Promise<ScheduleRow[]> {
  return q<ScheduleRow>('data_object_schedules')
    .orderByRaw('least(publish_at, unpublish_at) asc, object_id asc')
    .limit(opts.limit)
    .offset(opts.offset);
}

/**
 * Schedules with a time at or before `now`, locked and skipped by any other run holding them, so
 * two runs that overlap never carry out the same one twice.
 */
export async function lockDueSchedules(trx: Tx, now: Date, limit: number): Promise<ScheduleRow[]> {
  return trx<ScheduleRow>('data_object_schedules')
    .where((w) => w.where('publish_at', '<=', now).orWhere('unpublish_at', '<=', now))
    .orderBy('object_id')
    .limit(limit)
    .forUpdate()
    .skipLocked();
}
