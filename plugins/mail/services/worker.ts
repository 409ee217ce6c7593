import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Clock, Logger } from '../../../kernel/index.ts';
import type { OutboxOutcome, OutboxRow, OutboxStore } from '../store/outbox-store.ts';
import type { DeliveredRow, MailOutboxService } from './outbox.ts';

/** Time kept between the end of a send (its timeout) and the end of its claim, to record it. */
const RECORD_MARGIN_MS = 30_000;
/** Outcomes are recorded when this many wait, or this long after the first one. */
const FLUSH_AFTER_MS = 25;

/**
 * Sends due outbox rows, `concurrency` at once (one per pooled SMTP connection). A claim is one
 * statement: it takes up to `2 × concurrency` due rows with `FOR UPDATE SKIP LOCKED` and marks them
 * as this worker's until `now + claimMs` (their `next_attempt_at`), and commits; the sends run with
 * no transaction open and no connection held; outcomes are recorded in batches (one statement for
 * several rows). So:
 * - two processes never send one row: a claimed row is not due for anyone else until its claim ends,
 *   and a send starts only while its claim has room for the send timeout and the recording after it;
 * - a process killed mid-send leaves its rows queued and claimed: they are due again when the claim
 *   ends (`claimMs`, 2 × the send timeout + 60 s). A mail the server had accepted before the kill
 *   but whose outcome was not recorded yet then goes out twice, with the same Message-ID (at least
 *   once, never lost).
 * A worker that finds nothing sleeps until a mail is queued in this process or `pollMs` passes.
 */
export class MailWorker {
  /** Names this worker's claims in the rows (host, process, a random part for several workers). */
  private readonly owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private stopped = true;
  private loop: Promise<void> | undefined;
  private sleepers = new Set<() => void>();
  /** Counts wake-ups, so one that comes while the worker is busy claiming is not lost. */
  private wakeSeq = 0;
  /** Claimed rows not started yet, with the end of their claim. */
  private readonly ready: Array<{ row: OutboxRow; until: Date }> = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly recorder: OutcomeRecorder;

  constructor(
    private readonly deps: { clock: Clock; log: Logger; store: OutboxStore; outbox: MailOutboxService },
    private readonly opts: { concurrency: number; pollMs: number; sendTimeoutMs: number },
  ) {
    this.recorder = new OutcomeRecorder(deps, this.owner, opts.concurrency);
  }

  /** How long a claim lasts: every send it covers must end, and be recorded, before it does. */
  get claimMs(): number {
    return 2 * this.opts.sendTimeoutMs + 60_000;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = this.run();
  }

  /** Stops claiming, waits for the sends in flight (each bounded by the send timeout), records them. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
    this.loop = undefined;
  }

  wake(): void {
    this.wakeSeq += 1;
    for (const s of this.sleepers) s();
    this.sleepers.clear();
  }

  /** Sends due rows until none is left and records them (tests, a drain); answers how many were handled. */
  async drain(): Promise<number> {
    let n = 0;
    for (;;) {
      const claimed = await this.claim();
      if (!claimed) break;
      n += claimed;
      while (this.ready.length || this.inFlight.size) {
        this.startSends();
        if (this.inFlight.size) await Promise.race(this.inFlight);
      }
      await this.recorder.flush();
    }
    return n;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const seq = this.wakeSeq;
      let claimed = 0;
      // Claim while the rows at hand are fewer than the sends that can run.
      if (this.ready.length < this.opts.concurrency)
        try {
          claimed = await this.claim();
        } catch (err) {
          this.deps.log.error({ err }, 'mail: claiming due mails failed');
          await this.pause(this.opts.pollMs * 4);
          continue;
        }
      this.startSends();
      if (this.inFlight.size >= this.opts.concurrency) await Promise.race(this.inFlight);
      else if (claimed === 0 && seq === this.wakeSeq)
        // Nothing more is due: wait for a send to end, a mail queued here, or the next poll.
        await this.pause(this.opts.pollMs, this.inFlight.size ? Promise.race(this.inFlight) : undefined);
    }
    await Promise.allSettled(this.inFlight);
    await this.releaseReady();
    await this.recorder.close();
  }

  /** Claims due rows up to twice the sends that can run; answers how many. */
  private async claim(): Promise<number> {
    const room = 2 * this.opts.concurrency - this.ready.length - this.inFlight.size;
    if (room <= 0) return 0;
    const now = this.deps.clock.now();
    const until = new Date(now.getTime() + this.claimMs);
    const rows = await this.deps.store.claimDue(now, this.owner, until, room);
    for (const row of rows) this.ready.push({ row, until });
    return rows.length;
  }

  /** Starts sends of ready rows while fewer than `concurrency` run; gives back rows whose claim is too short. */
  private startSends(): void {
    const late: string[] = [];
    while (this.inFlight.size < this.opts.concurrency && this.ready.length) {
      const { row, until } = this.ready.shift()!;
      // A send may take up to the send timeout and must be recorded before the claim ends.
      if (until.getTime() - this.deps.clock.now().getTime() < this.opts.sendTimeoutMs + RECORD_MARGIN_MS) {
        late.push(row.id);
        continue;
      }
      const send = this.send(row).finally(() => this.inFlight.delete(send));
      this.inFlight.add(send);
    }
    if (late.length)
      void this.deps.store
        .release(this.owner, late, this.deps.clock.now())
        .catch((err) => this.deps.log.error({ err }, 'mail: giving back claimed mails failed'));
  }

  private async send(row: OutboxRow): Promise<void> {
    try {
      this.recorder.add(await this.deps.outbox.deliver(row));
    } catch (err) {
      // `deliver` answers every send problem as an outcome; this is a bug. The claim runs out.
      this.deps.log.error({ err, mail: row.id }, 'mail: a send failed unexpectedly');
    }
  }

  /** On stop: the claimed rows not started are due again at once (another process may send them). */
  private async releaseReady(): Promise<void> {
    const ids = this.ready.splice(0).map((r) => r.row.id);
    try {
      await this.deps.store.release(this.owner, ids, this.deps.clock.now());
    } catch (err) {
      this.deps.log.error({ err }, 'mail: giving back claimed mails failed (they are due when their claim ends)');
    }
  }

  /** Waits `ms`, or less when woken, stopped or `until` settles. */
  private pause(ms: number, until?: Promise<unknown>): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleepers.add(done);
      until?.then(done, done);
    });
  }
}

/**
 * Records send outcomes in batches: when `batch` wait or `FLUSH_AFTER_MS` after the first, one
 * statement at a time. A failed recording is tried again with the next batch; the rows stay claimed
 * meanwhile (if it never succeeds, they are sent again when their claim ends: at least once).
 */
class OutcomeRecorder {
  private pending: DeliveredRow[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly deps: { log: Logger; store: OutboxStore; outbox: MailOutboxService },
    private readonly owner: string,
    private readonly batch: number,
  ) {}

  add(delivered: DeliveredRow): void {
    this.pending.push(delivered);
    if (this.pending.length >= this.batch) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_AFTER_MS);
  }

  /** Records everything added so far (waits for a recording under way first). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.running) await this.running;
    if (!this.pending.length) return;
    const batch = this.pending.splice(0);
    this.running = this.record(batch).finally(() => (this.running = undefined));
    await this.running;
  }

  /** The last recording; what still fails is left to the claims' end (sent again then). */
  async close(): Promise<void> {
    await this.flush();
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length)
      this.deps.log.error({ mails: this.pending.length }, 'mail: outcomes not recorded at stop; sent again later');
    this.pending = [];
  }

  private async record(batch: DeliveredRow[]): Promise<void> {
    let recorded: Set<string>;
    try {
      const rows: Array<{ id: string; outcome: OutboxOutcome }> = batch.map((d) => ({
        id: d.row.id,
        outcome: d.outcome,
      }));
      recorded = new Set(await this.deps.store.finishMany(this.owner, rows));
    } catch (err) {
      this.deps.log.error({ err }, 'mail: recording sent mails failed; trying again');
      this.pending.unshift(...batch);
      this.timer ??= setTimeout(() => void this.flush(), 1000);
      return;
    }
    for (const d of batch) {
      if (recorded.has(d.row.id)) this.deps.outbox.announceSent(d);
      else this.deps.log.warn({ mail: d.row.id }, 'mail: sent after its claim ran out; another worker holds it now');
    }
  }
}
