import {
  type Tx,
  type UserActor,
  badRequest,
  forbidden,
  inTransaction,
  isHttpError,
  notFound,
} from '../../../kernel/index.ts';
import { announceObjectChange } from '../events.ts';
import type { ObjectRow } from '../model.ts';
import { findClassById } from '../store/class-store.ts';
import { findDraft } from '../store/draft-store.ts';
import { findObjectById, setPublished } from '../store/object-store.ts';
import {
  type ScheduleRow,
  deleteSchedule,
  findSchedule,
  listSchedules,
  lockDueSchedules,
  saveSchedule,
} from '../store/schedule-store.ts';
import type { WriteContext } from './actor.ts';
import { isUuid } from './attributes.ts';
import type { DataServiceDeps } from './deps.ts';
import type { DraftService } from './drafts.ts';
import type { ObjectService } from './object-service.ts';

/** Schedules carried out per transaction by one run. */
const RUN_BATCH = 50;

export interface ScheduleDto {
  objectId: string;
  classId: string;
  publishAt: string | null;
  unpublishAt: string | null;
  scheduledBy: string;
  updatedAt: string;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
export const toScheduleDto = (row: ScheduleRow): ScheduleDto => ({
  objectId: row.object_id,
  classId: row.class_id,
  publishAt: iso(row.publish_at),
  unpublishAt: iso(row.unpublish_at),
  scheduledBy: row.scheduled_by,
  updatedAt: iso(row.updated_at)!,
});

/**
 * Scheduled publishing of objects. A publisher sets when an object goes live (its working copy is
 * promoted then, if it has one, and the object is published) and when it goes offline; the schedule
 * `data.scheduled-publishing` (every minute, once across the processes) carries it out with that
 * publisher as the actor of the events and audit rows, as if they had published then.
 */
export class ScheduleService {
  constructor(
    private readonly deps: DataServiceDeps,
    private readonly objects: ObjectService,
    private readonly drafts: DraftService,
  ) {}

  async get(id: string): Promise<ScheduleDto | null> {
    // No object: 404, as every other route of an object id answers (null means "not scheduled").
    const object = isUuid(id) ? await findObjectById(this.deps.kernel.db, id) : undefined;
    if (!object) throw notFound('Object not found', 'OBJECT_NOT_FOUND');
    const row = await findSchedule(this.deps.kernel.db, id);
    return row && toScheduleDto(row);
  }

  async list(opts: { limit: number; offset: number }): Promise<ScheduleDto[]> {
    return (await listSchedules(this.deps.kernel.db, opts)).map(toScheduleDto);
  }

  /** PUT /data-objects/:id/schedule: both times null removes the schedule (answers null). */
  async set(
    ctx: WriteContext,
    id: string,
    input: { publishAt: string | null; unpublishAt: string | null },
  ): Promise<ScheduleDto | null> {
    if (!this.objects.mayPublish(ctx)) throw forbidden('Scheduling needs objects:publish', 'PUBLISH_FORBIDDEN');
    const publishAt = input.publishAt === null ? null : new Date(input.publishAt);
    const unpublishAt = input.unpublishAt === null ? null : new Date(input.unpublishAt);
    return inTransaction(this.deps.kernel.db, ctx.trx, async (trx) => {
      const row = isUuid(id) ? await findObjectById(trx, id, 'update') : null;
      if (!row) throw notFound('Object not found', 'OBJECT_NOT_FOUND');
      if (publishAt && unpublishAt && unpublishAt <= publishAt)
        throw badRequest('unpublishAt must be later than publishAt', 'unpublishAt');
      const saved =
        publishAt || unpublishAt
          ? await saveSchedule(trx, {
              object_id: row.id,
              class_id: row.class_id,
              publish_at: publishAt,
              unpublish_at: unpublishAt,
              scheduled_by: ctx.actor.type === 'user' ? ctx.actor.id : (ctx.changeActor.id ?? 'system'),
              scheduled_by_label: ctx.actor.type === 'user' ? ctx.actor.email : null,
            })
          : null;
      if (!saved) await deleteSchedule(trx, row.id);
      await this.deps.kernel.audit.record(
        ctx,
        {
          action: 'data_object.schedule',
          targetType: 'data_object',
          targetId: row.id,
          after: { publishAt: iso(publishAt), unpublishAt: iso(unpublishAt) },
        },
        trx,
      );
      return saved && toScheduleDto(saved);
    });
  }

  /** One run: every schedule due by the clock, each in a savepoint (one that fails is reported and dropped). */
  async run(signal?: AbortSignal): Promise<number> {
    const now = this.deps.kernel.clock.now();
    let done = 0;
    while (!signal?.aborted) {
      const count = await this.deps.kernel.db.transaction(async (trx) => {
        const due = await lockDueSchedules(trx, now, RUN_BATCH);
        for (const schedule of due) await this.carryOut(trx, schedule, now);
        return due.length;
      });
      done += count;
      if (count < RUN_BATCH) break;
    }
    return done;
  }

  private async carryOut(trx: Tx, schedule: ScheduleRow, now: Date): Promise<void> {
    const actor: UserActor = {
      type: 'user',
      id: schedule.scheduled_by,
      email: schedule.scheduled_by_label ?? '',
      displayName: schedule.scheduled_by_label ?? '',
      roles: [],
      // Checked when the schedule was set; the run only carries out what that publisher decided.
      permissions: new Set(),
    };
    const ctx: WriteContext = { actor, changeActor: { type: 'user', id: schedule.scheduled_by }, trx };
    let publishAt = schedule.publish_at;
    let unpublishAt = schedule.unpublish_at;
    try {
      await trx.transaction(async (sp) => {
        const row = await findObjectById(sp, schedule.object_id, 'update');
        if (!row) return;
        if (publishAt && publishAt <= now) {
          await this.publish(sp, { ...ctx, trx: sp }, row);
          publishAt = null;
        }
        if (unpublishAt && unpublishAt <= now && !publishAt) {
          await this.unpublish(sp, { ...ctx, trx: sp }, row);
          unpublishAt = null;
        }
      });
    } catch (err) {
      if (!isHttpError(err)) throw err;
      // A working copy that no longer fits (a unique value taken meanwhile): reported, not retried.
      this.deps.kernel.log.warn({ objectId: schedule.object_id, problem: err.message }, 'scheduled publish failed');
      await this.deps.kernel.audit.record(
        { actor },
        {
          action: 'data_object.scheduled_publish_failed',
          targetType: 'data_object',
          targetId: schedule.object_id,
          after: { problem: err.message, code: err.code },
        },
        trx,
      );
      publishAt = null;
      if (unpublishAt && unpublishAt <= now) unpublishAt = null;
    }
    if (publishAt || unpublishAt)
      await saveSchedule(trx, { ...schedule, publish_at: publishAt, unpublish_at: unpublishAt });
    else await deleteSchedule(trx, schedule.object_id);
  }

  private async publish(trx: Tx, ctx: WriteContext, row: ObjectRow): Promise<void> {
    const cls = (await findClassById(trx, row.class_id, 'share'))!;
    const draft = await findDraft(trx, row.id, 'update');
    const live = draft ? await this.drafts.promote(trx, ctx, row, cls, draft) : row;
    const [changed] = await setPublished(trx, [live], true);
    if (changed)
      await announceObjectChange(this.deps.kernel.recordHooks, trx, {
        kind: 'published',
        row: changed,
        className: cls.name,
        actor: ctx.changeActor,
      });
    await this.deps.kernel.audit.record(
      ctx,
      {
        action: 'data_object.scheduled_publish',
        targetType: 'data_object',
        targetId: row.id,
        targetLabel: `${cls.name} ${row.key ?? row.id} (${row.locale})`,
        after: { published: true, promotedDraft: draft !== null },
      },
      trx,
    );
  }

  private async unpublish(trx: Tx, ctx: WriteContext, row: ObjectRow): Promise<void> {
    const cls = (await findClassById(trx, row.class_id, 'share'))!;
    const [changed] = await setPublished(trx, [row], false);
    if (changed)
      await announceObjectChange(this.deps.kernel.recordHooks, trx, {
        kind: 'unpublished',
        row: changed,
        className: cls.name,
        actor: ctx.changeActor,
      });
    await this.deps.kernel.audit.record(
      ctx,
      {
        action: 'data_object.scheduled_unpublish',
        targetType: 'data_object',
        targetId: row.id,
        targetLabel: `${cls.name} ${row.key ?? row.id} (${row.locale})`,
        after: { published: false },
      },
      trx,
    );
  }
}
