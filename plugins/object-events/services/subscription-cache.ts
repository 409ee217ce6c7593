import type { Tx } from '../../../kernel/index.ts';
import type { SubscriptionRow, SubscriptionStore } from '../store/subscription-store.ts';

export interface CachedSubscription {
  id: string;
  classId: string | null;
  events: ReadonlySet<string>;
  ignoreActors: ReadonlySet<string>;
}

/**
 * The enabled subscriptions, kept in process so a write that no subscription wants costs nothing.
 * Dropped on this process's own changes, on a database notice from another process, and after a TTL
 * as a backstop. It is only a pre-filter: the delivery insert checks the subscriptions again in the
 * database, so a stale entry can never queue for a deleted, paused or changed subscription.
 */
export class SubscriptionCache {
  private entries: CachedSubscription[] | undefined;
  private loadedAt = 0;
  private generation = 0;

  constructor(private readonly deps: { store: SubscriptionStore; ttlMs: number; nowMs?: () => number }) {}

  invalidate(): void {
    this.generation += 1;
    this.entries = undefined;
  }

  /** Enabled subscriptions that tick `type` and accept the class (reads through `trx` when stale). */
  async matching(type: string, classId: string | null, trx: Tx): Promise<CachedSubscription[]> {
    const all = await this.current(trx);
    return all.filter((s) => s.events.has(type) && (s.classId === null || s.classId === classId));
  }

  private async current(trx: Tx): Promise<CachedSubscription[]> {
    const now = (this.deps.nowMs ?? Date.now)();
    if (this.entries && now - this.loadedAt < this.deps.ttlMs) return this.entries;
    const generation = this.generation;
    const rows = await this.deps.store.list(trx);
    const entries = rows.filter((r) => r.enabled).map(toCached);
    // A change noticed while loading wins: keep the answer for this call only.
    if (generation === this.generation) {
      this.entries = entries;
      this.loadedAt = now;
    }
    return entries;
  }
}

function toCached(row: SubscriptionRow): CachedSubscription {
  return { id: row.id, classId: row.class_id, events: new Set(row.events), ignoreActors: new Set(row.ignore_actors) };
}
