import { type Clock, JobFailure, type JobRun, type Tx } from '../../../kernel/index.ts';
import type { OutboxOutcome, OutboxRow, OutboxStore } from '../store/outbox-store.ts';
import { PENDING } from '../store/outbox-store.ts';
import { GroupedCalls } from './grouped-calls.ts';
import { type DeliveredRow, MAX_RETRY_AFTER_MS, type MailOutboxService, type OutboxJob } from './outbox.ts';

/**
 * The handler of the `mail.outbox` job queue: one try sends one mail log row and records what it
 * became. The kernel's queue claims the jobs, bounds a try by its timeout, applies the retry schedule
 * and takes a dead process's try back. Tries running at once share their statements: their rows are
 * read in one, their "sent" outcomes recorded in one (`GroupedCalls`), and a try ends only once its
 * outcome is recorded. A failed try leaves the row to `onFailure` (retrying, or failed when no try is
 * left), in the transaction that schedules the next try.
 */
export class OutboxQueue {
  private readonly rows: GroupedCalls<string, OutboxRow | undefined>;
  private readonly sent: GroupedCalls<DeliveredRow, boolean>;
  /** The provider a failed try used, for its `onFailure` (which gets the job, not the try's result). */
  private readonly failedWith = new Map<string, string>();

  constructor(private readonly deps: { clock: Clock; store: OutboxStore; outbox: MailOutboxService }) {
    this.rows = new GroupedCalls(async (ids) => {
      const found = new Map((await deps.store.byIds(ids)).map((r) => [r.id, r]));
      return ids.map((id) => found.get(id));
    });
    this.sent = new GroupedCalls(async (delivered) => {
      const recorded = new Set(
        await deps.store.finishMany(delivered.map((d) => ({ id: d.row.id, outcome: d.outcome }))),
      );
      return delivered.map((d) => recorded.has(d.row.id));
    });
  }

  async run(job: JobRun<OutboxJob>): Promise<void> {
    const row = await this.rows.call(job.payload.mailId);
    // Sent at once (a test mail, secrets in memory), deleted by an erasure, or recorded just before a crash.
    if (!row || !PENDING.includes(row.status)) return;
    const { result, provider, mail } = await this.deps.outbox.attempt(row);
    if (result.kind !== 'sent') {
      this.failedWith.set(job.id, provider);
      throw new JobFailure(result.problem, {
        final: result.kind === 'permanent',
        retryAfterMs: result.kind === 'temporary' ? Math.min(result.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS) : undefined,
      });
    }
    const now = this.deps.clock.now();
    const outcome: OutboxOutcome = {
      status: 'sent',
      attempts: job.attempt,
      nextAttemptAt: now,
      provider,
      providerAnswer: result.answer,
      delivered: result.delivered,
      lastError: null,
      sentAt: now,
      dropSecrets: true,
    };
    const delivered = { row, outcome, mail };
    if (await this.sent.call(delivered)) this.deps.outbox.announceSent(delivered);
  }

  /** The row is retrying until `nextRunAt`, or failed for good (its secrets dropped) when no try is left. */
  async onFailure(
    job: JobRun<OutboxJob>,
    failure: { problem: string; nextRunAt: Date | undefined },
    trx: Tx,
  ): Promise<void> {
    const provider = this.failedWith.get(job.id) ?? null;
    this.failedWith.delete(job.id);
    const { nextRunAt } = failure;
    await this.deps.store.finish(
      job.payload.mailId,
      {
        status: nextRunAt ? 'retrying' : 'failed',
        attempts: job.attempt,
        nextAttemptAt: nextRunAt ?? this.deps.clock.now(),
        provider,
        providerAnswer: null,
        delivered: null,
        lastError: failure.problem,
        sentAt: null,
        dropSecrets: !nextRunAt,
      },
      trx,
    );
  }
}
