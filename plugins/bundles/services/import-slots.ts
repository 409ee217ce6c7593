import { type Actor, HttpError, InFlightLimit, tooManyRequests } from '../../../kernel/index.ts';

export interface SlotLimits {
  perUser: number;
  global: number;
  /** The whole import (upload, checks, apply) ends within this many milliseconds, or is stopped. */
  budgetMs: number;
}

/** One import's hold on its slots and its deadline. */
export interface ImportSlot {
  /** Throws 503 `IMPORT_TIME_BUDGET` once the budget is spent; checked at every step and record. */
  check(): void;
  /** Aborted when the budget is spent (cuts the upload of the body). */
  signal: AbortSignal;
  release(): void;
}

const ALL = 'all';

/**
 * Bounds how many bundle imports (dry runs and applies alike) run at once, per user and in this
 * process, and how long each may take: a bundle of 100,000 assets once took 39 s and 240 MB, and
 * three at once 866 MB. A user with an import running gets 429 `IMPORT_RUNNING`; a process with
 * every slot taken answers 503 `IMPORTS_BUSY`; both carry `Retry-After` (the recent average length
 * of an import). Slots are taken before the body is read and given back however the import ends.
 */
export class ImportSlots {
  private readonly running = new InFlightLimit();
  /** Moving average of how long an import held its slot, for Retry-After. */
  private averageMs = 10_000;

  constructor(
    private readonly limits: SlotLimits,
    private readonly now: () => number = Date.now,
  ) {}

  private retryAfterSeconds(): number {
    return Math.max(1, Math.min(Math.ceil(this.averageMs / 1000), Math.ceil(this.limits.budgetMs / 1000)));
  }

  acquire(actor: Actor): ImportSlot {
    const key =
      actor.type === 'user' ? `user:${actor.id}` : actor.type === 'system' ? `system:${actor.id}` : actor.type;
    const own = this.running.acquire(key, this.limits.perUser);
    if (!own)
      throw tooManyRequests(
        `You have ${this.limits.perUser} website import(s) running (BUNDLE_IMPORTS_PER_USER); wait until it ends`,
        this.retryAfterSeconds(),
        'IMPORT_RUNNING',
      );
    const shared = this.running.acquire(ALL, this.limits.global);
    if (!shared) {
      own();
      throw new HttpError(
        503,
        'IMPORTS_BUSY',
        `${this.limits.global} website import(s) are running on this server (BUNDLE_IMPORTS_GLOBAL); try again shortly`,
        undefined,
        { 'retry-after': String(this.retryAfterSeconds()) },
      );
    }
    const started = this.now();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.limits.budgetMs);
    timer.unref();
    let released = false;
    return {
      signal: controller.signal,
      check: () => {
        if (controller.signal.aborted || this.now() - started > this.limits.budgetMs) throw this.overBudget();
      },
      release: () => {
        if (released) return;
        released = true;
        clearTimeout(timer);
        this.averageMs = this.averageMs * 0.7 + (this.now() - started) * 0.3;
        shared();
        own();
      },
    };
  }

  overBudget(): HttpError {
    return new HttpError(
      503,
      'IMPORT_TIME_BUDGET',
      `The import took longer than BUNDLE_IMPORT_TIME_BUDGET_MS (${this.limits.budgetMs} ms) and was stopped; nothing was written but the files already stored. Import a smaller bundle or raise the budget`,
      undefined,
      { 'retry-after': String(this.retryAfterSeconds()) },
    );
  }
}
