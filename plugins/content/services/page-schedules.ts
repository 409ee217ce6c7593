import {
  type Actor,
  type AuditContext,
  type Tx,
  type UserActor,
  badRequest,
  forbidden,
  inTransaction,
  isHttpError,
} from '../../../kernel/index.ts';
import type { PageScheduleRow, ScheduleStore } from '../store/schedules.ts';
import type { ContentDeps } from './deps.ts';
import type { PageService } from './pages.ts';

const RUN_BATCH = 50;

export const toPageScheduleDto = (row: PageScheduleRow) => ({
  pageId: row.owner_id,
  publishAt: row.publish_at,
  unpublishAt: row.unpublish_at,
  scheduledBy: row.scheduled_by,
  updatedAt: row.updated_at,
});

/**
 * Scheduled publishing of pages. A publisher sets when a page goes live (its working copy is promoted
 * then, if it has one) and when it goes offline; the schedule `content.scheduled-publishing` (every
 * minute, once across the processes) carries it out with that publisher as the actor.
 */
export class PageSchedules {
  constructor(private readonly deps: { kernel: ContentDeps; pages: PageService; store: ScheduleStore }) {}

  async get(pageId: string) {
    await this.deps.pages.get(pageId);
    const row = await this.deps.store.find(pageId);
    return row && toPageScheduleDto(row);
  }

  async list(filter: { limit: number; offset: number }) {
    return (await this.deps.store.list(filter)).map(toPageScheduleDto);
  }

  /** PUT /cms-one/pages/:id/schedule; both times null removes it (answers null). */
  async set(ctx: AuditContext, pageId: string, input: { publishAt: string | null; unpublishAt: string | null }) {
    if (!this.deps.pages.mayPublishAs(ctx.actor))
      throw forbidden('Scheduling needs objects:publish', 'PUBLISH_FORBIDDEN');
    const publishAt = input.publishAt === null ? null : new Date(input.publishAt);
    const unpublishAt = input.unpublishAt === null ? null : new Date(input.unpublishAt);
    return inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const page = await this.deps.pages.get(pageId, trx);
      if (publishAt && unpublishAt && unpublishAt <= publishAt)
        throw badRequest('unpublishAt must be later than publishAt', 'unpublishAt');
      const saved =
        publishAt || unpublishAt
          ? await this.deps.store.save(
              {
                owner_id: pageId,
                publish_at: publishAt,
                unpublish_at: unpublishAt,
                scheduled_by: schedulerId(ctx.actor),
                scheduled_by_label: ctx.actor.type === 'user' ? ctx.actor.email : null,
              },
              trx,
            )
          : null;
      if (!saved) await this.deps.store.remove(pageId, trx);
      await this.deps.kernel.audit.record(
        ctx,
        {
          action: 'page.schedule',
          targetType: 'page',
          targetId: pageId,
          targetLabel: page.title,
          after: { publishAt: publishAt?.toISOString() ?? null, unpublishAt: unpublishAt?.toISOString() ?? null },
        },
        trx,
      );
      return saved && toPageScheduleDto(saved);
    });
  }

  /** One run: every schedule due by the clock, each in a savepoint (one that fails is reported and dropped). */
  async run(signal?: AbortSignal): Promise<number> {
    const now = this.deps.kernel.clock.now();
    let done = 0;
    while (!signal?.aborted) {
      const count = await this.deps.kernel.db.transaction(async (trx) => {
        const due = await this.deps.store.lockDue(now, RUN_BATCH, trx);
        for (const schedule of due) await this.carryOut(trx, schedule, now);
        return due.length;
      });
      done += count;
      if (count < RUN_BATCH) break;
    }
    return done;
  }

  private async carryOut(trx: Tx, schedule: PageScheduleRow, now: Date): Promise<void> {
    const actor: UserActor = {
      type: 'user',
      id: schedule.scheduled_by,
      email: schedule.scheduled_by_label ?? '',
      displayName: schedule.scheduled_by_label ?? '',
      roles: [],
      // Checked when the schedule was set; the run carries out what that publisher decided.
      permissions: new Set(),
    };
    let publishAt = schedule.publish_at;
    let unpublishAt = schedule.unpublish_at;
    try {
      await trx.transaction(async (sp) => {
        if (publishAt && publishAt <= now) {
          await this.deps.pages.applySchedule(sp, { actor }, schedule.owner_id, 'publish');
          publishAt = null;
        }
        if (unpublishAt && unpublishAt <= now && !publishAt) {
          await this.deps.pages.applySchedule(sp, { actor }, schedule.owner_id, 'unpublish');
          unpublishAt = null;
        }
      });
    } catch (err) {
      if (!isHttpError(err)) throw err;
      // A working copy that no longer fits (its path taken meanwhile): reported, not retried.
      this.deps.kernel.log.warn({ pageId: schedule.owner_id, problem: err.message }, 'scheduled publish failed');
      await this.deps.kernel.audit.record(
        { actor },
        {
          action: 'page.scheduled_publish_failed',
          targetType: 'page',
          targetId: schedule.owner_id,
          after: { problem: err.message, code: err.code },
        },
        trx,
      );
      publishAt = null;
      if (unpublishAt && unpublishAt <= now) unpublishAt = null;
    }
    if (publishAt || unpublishAt)
      await this.deps.store.save({ ...schedule, publish_at: publishAt, unpublish_at: unpublishAt }, trx);
    else await this.deps.store.remove(schedule.owner_id, trx);
  }
}

const schedulerId = (actor: Actor) =>
  actor.type === 'user' ? actor.id : actor.type === 'system' ? (actor.id ?? 'system') : 'anonymous';
