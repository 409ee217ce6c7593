import type { Clock, Db, Logger } from '../../../kernel/index.ts';
import type { OutboxStore } from '../store/outbox-store.ts';
import type { DeliveredRow, MailOutboxService } from './outbox.ts';

/**
 * Sends due outbox rows: `concurrency` lanes, each claiming one row with `FOR UPDATE SKIP LOCKED` in
 * its own transaction and holding the lock while it sends, then recording the outcome in the same
 * transaction. So two processes never send one row; a process killed mid-send loses its connection,
 * the database drops its lock and the row, still queued, is sent by the next claim (a mail the
 * server had fully accepted just before the kill may then arrive twice, with the same Message-ID).
 * A lane that finds nothing sleeps until a mail is queued in this process or `pollMs` passes.
 */
export class MailWorker {
  private stopped = true;
  private lanes: Promise<void>[] = [];
  private sleepers = new Set<() => void>();
  /** Counts wake-ups, so one that comes while a lane is busy claiming is not lost. */
  private wakeSeq = 0;

  constructor(
    private readonly deps: { db: Db; clock: Clock; log: Logger; store: OutboxStore; outbox: MailOutboxService },
    private readonly opts: { concurrency: number; pollMs: number },
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.lanes = Array.from({ length: this.opts.concurrency }, () => this.lane());
  }

  /** Stops claiming and waits for the sends in flight (each bounded by the send timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await Promise.allSettled(this.lanes);
  }

  wake(): void {
    this.wakeSeq += 1;
    for (const s of this.sleepers) s();
    this.sleepers.clear();
  }

  /** Sends due rows until none is left (tests, the benchmark, a drain); answers how many were handled. */
  async drain(): Promise<number> {
    let n = 0;
    while (await this.once()) n += 1;
    return n;
  }

  private async lane(): Promise<void> {
    while (!this.stopped) {
      const seq = this.wakeSeq;
      let worked = false;
      try {
        worked = await this.once();
      } catch (err) {
        this.deps.log.error({ err }, 'mail: claiming or recording a send failed');
        await this.sleep(this.opts.pollMs * 4);
        continue;
      }
      if (!worked && seq === this.wakeSeq) await this.sleep(this.opts.pollMs);
    }
  }

  /** Claims, sends and records one due row; false when none was due. */
  async once(): Promise<boolean> {
    const delivered = await this.deps.db.transaction(async (trx): Promise<DeliveredRow | undefined> => {
      const row = await this.deps.store.claimDue(this.deps.clock.now(), trx);
      if (!row) return undefined;
      const result = await this.deps.outbox.deliver(row);
      await this.deps.store.finish(row.id, result.outcome, trx);
      return result;
    });
    if (!delivered) return false;
    this.deps.outbox.announceSent(delivered);
    return true;
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }
}
