import type { Tx } from './database.ts';

/** Who caused a change, as record-change subscribers see it. */
export interface ChangeActor {
  type: 'user' | 'api-client' | 'import' | 'system';
  id: string | null;
}

/** A change a plugin announces inside its write transaction. */
export interface RecordChange {
  /** Record type, e.g. `object` or `asset`. */
  recordType: string;
  recordId: string;
  /** Change kind, e.g. `created`, `updated`, `published`, `bulk`. */
  kind: string;
  changedFields?: string[];
  actor: ChangeActor;
  /** Whatever else subscribers need (class, key, locale, `transition`, `bulk`...). Never secrets. */
  data?: Record<string, unknown>;
  /** Request-scoped flags, e.g. `flow: 'stop'` from `X-Cms-Flow`. */
  flags?: Record<string, string>;
}

export type RecordChangeSubscriber = (change: RecordChange, trx: Tx) => Promise<void> | void;

/**
 * Record-change hooks ("filters" in Directus terms): subscribers run inside the writer's transaction,
 * in subscription order; a throwing subscriber fails the write, so a change and the rows its
 * subscribers store commit together or not at all.
 */
export class RecordHooks {
  private readonly subscribers = new Map<string, RecordChangeSubscriber[]>();

  /** Subscribe to one record type, or '*' for all. Returns an unsubscribe function. */
  subscribe(recordType: string, subscriber: RecordChangeSubscriber): () => void {
    const list = this.subscribers.get(recordType) ?? [];
    list.push(subscriber);
    this.subscribers.set(recordType, list);
    return () => {
      const i = list.indexOf(subscriber);
      if (i >= 0) list.splice(i, 1);
    };
  }

  /** Must be called with the write's transaction. */
  async announce(trx: Tx, change: RecordChange): Promise<void> {
    for (const subscriber of this.subscribers.get(change.recordType) ?? []) await subscriber(change, trx);
    for (const subscriber of this.subscribers.get('*') ?? []) await subscriber(change, trx);
  }

  hasSubscribers(recordType: string): boolean {
    return (this.subscribers.get(recordType)?.length ?? 0) + (this.subscribers.get('*')?.length ?? 0) > 0;
  }
}
