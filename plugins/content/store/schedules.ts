import type { Db, Tx } from '../../../kernel/index.ts';

/** When a page goes live and offline (`content_schedules`), and who set it. */
export interface PageScheduleRow {
  owner_type: 'page';
  owner_id: string;
  publish_at: Date | null;
  unpublish_at: Date | null;
  scheduled_by: string;
  scheduled_by_label: string | null;
  created_at: Date;
  updated_at: Date;
}

export type PageScheduleValues = Pick<
  PageScheduleRow,
  'owner_id' | 'publish_at' | 'unpublish_at' | 'scheduled_by' | 'scheduled_by_label'
>;

/** Scheduled publishing of pages. */
export class ScheduleStore {
  constructor(private readonly db: Db) {}

  async find(pageId: string): Promise<PageScheduleRow | null> {
    return (
      (await this.db<PageScheduleRow>('content_schedules').where({ owner_type: 'page', owner_id: pageId }).first()) ??
      null
    );
  }

  async save(values: PageScheduleValues, trx: Tx): Promise<PageScheduleRow> {
    const [row] = await trx<PageScheduleRow>('content_schedules')
      .insert({ ...values, owner_type: 'page', updated_at: trx.fn.now() } as never)
      .onConflict(['owner_type', 'owner_id'])
      .merge(['publish_at', 'unpublish_at', 'scheduled_by', 'scheduled_by_label', 'updated_at'])
      .returning('*');
    return row;
  }

  async remove(pageId: string, trx: Tx): Promise<void> {
    await trx('content_schedules').where({ owner_type: 'page', owner_id: pageId }).delete();
  }

  list(filter: { limit: number; offset: number }): Promise<PageScheduleRow[]> {
    return this.db<PageScheduleRow>('content_schedules')
      .orderByRaw('least(publish_at, unpublish_at) asc, owner_id asc')
      .limit(filter.limit)
      .offset(filter.offset);
  }

  /** Schedules due by `now`, locked; rows another run holds are skipped, so none is carried out twice. */
  lockDue(now: Date, limit: number, trx: Tx): Promise<PageScheduleRow[]> {
    return trx<PageScheduleRow>('content_schedules')
      .where((w) => w.where('publish_at', '<=', now).orWhere('unpublish_at', '<=', now))
      .orderBy('owner_id')
      .limit(limit)
      .forUpdate()
      .skipLocked();
  }
}
