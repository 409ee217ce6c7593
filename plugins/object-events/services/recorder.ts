import { randomUUID } from 'node:crypto';
import type { AuditWriter, Clock, Jobs, Logger, RecordChange, Tx } from '../../../kernel/index.ts';
import { SYSTEM } from '../../../kernel/index.ts';
import { envelopeOf, eventTypeOf } from '../events.ts';
import { DELIVERY_QUEUE } from '../ports.ts';
import {
  countInWindows,
  insertEventWithDeliveries,
  markLoopTripped,
  type PlannedDelivery,
} from '../store/event-store.ts';
import type { CachedSubscription, SubscriptionCache } from './subscription-cache.ts';

export interface LoopGuardSettings {
  clientMax: number;
  subscriptionMax: number;
  windowMs: number;
}

export const FLOW_STOP_PROBLEM = 'end of flow (X-Cms-Flow: stop)';

/**
 * Turns record changes into events, deliveries and their jobs (queue `object-events.deliveries`) inside
 * the writer's transaction (a rollback leaves nothing; a failure here fails the write). A change no
 * subscription wants costs one in-memory filter.
 */
export class EventRecorder {
  constructor(
    private readonly deps: {
      cache: SubscriptionCache;
      jobs: Jobs;
      clock: Clock;
      audit: AuditWriter;
      log: Logger;
      loopGuard: LoopGuardSettings;
    },
  ) {}

  async record(change: RecordChange, trx: Tx): Promise<void> {
    const type = eventTypeOf(change);
    if (!type) return;
    const classId = classIdOf(change);
    const actorId = change.actor.id;
    const candidates = (await this.deps.cache.matching(type, classId, trx)).filter(
      (s) => actorId === null || !s.ignoreActors.has(actorId),
    );
    const stop = change.flags?.flow === 'stop';
    if (stop) await this.auditEndOfFlow(change, type, trx);
    if (candidates.length === 0) return;

    const now = this.deps.clock.now();
    const planned = stop
      ? candidates.map((s) => stopped(s, FLOW_STOP_PROBLEM))
      : await this.applyLoopGuard(change, candidates, now, trx);
    const { queued } = await insertEventWithDeliveries(
      trx,
      {
        id: randomUUID(),
        type,
        recordType: change.recordType,
        recordId: change.recordId,
        occurredAt: now,
        envelope: envelopeOf(change, type, now),
        match: { classId, actorId, checkFilters: true },
      },
      planned,
    );
    if (queued.length > 0) await this.deps.jobs.enqueueMany(DELIVERY_QUEUE, queued, { trx });
  }

  /**
   * Only API clients are counted (people, system and imports never): per client and record, and per
   * subscription and record. Over either limit the delivery is stored as stopped.
   */
  private async applyLoopGuard(
    change: RecordChange,
    candidates: CachedSubscription[],
    now: Date,
    trx: Tx,
  ): Promise<PlannedDelivery[]> {
    const { clientMax, subscriptionMax, windowMs } = this.deps.loopGuard;
    if (change.actor.type !== 'api-client' || (clientMax === 0 && subscriptionMax === 0))
      return candidates.map(pending);
    const recordKey = `${change.recordType}:${change.recordId}`;
    let clientTripped = false;
    if (clientMax > 0) {
      const counts = await countInWindows(trx, 'client', [change.actor.id ?? ''], recordKey, now, windowMs);
      clientTripped = (counts.get(change.actor.id ?? '') ?? 0) > clientMax;
    }
    const perSubscription =
      subscriptionMax > 0
        ? await countInWindows(
            trx,
            'subscription',
            candidates.map((s) => s.id),
            recordKey,
            now,
            windowMs,
          )
        : new Map<string, number>();
    const planned = candidates.map((s) => {
      if (clientTripped)
        return stopped(
          s,
          `loop guard: more than ${clientMax} events by one API client on this record within ${windowMs / 1000} s`,
        );
      if ((perSubscription.get(s.id) ?? 0) > subscriptionMax) {
        return stopped(
          s,
          `loop guard: more than ${subscriptionMax} events by API clients for this subscription and record within ${windowMs / 1000} s`,
        );
      }
      return pending(s);
    });
    const tripped = planned.filter((p) => p.status === 'stopped').map((p) => p.subscriptionId);
    if (tripped.length > 0) {
      const fresh = await markLoopTripped(trx, tripped, now);
      if (fresh.length > 0) {
        this.deps.log.warn(
          {
            subscriptions: fresh,
            recordType: change.recordType,
            recordId: change.recordId,
            apiClient: change.actor.id,
          },
          'object events: loop guard stopped deliveries',
        );
      }
    }
    return planned;
  }

  /** A write with `X-Cms-Flow: stop` is kept and audited as the end of a flow (in its transaction). */
  private async auditEndOfFlow(change: RecordChange, type: string, trx: Tx): Promise<void> {
    await this.deps.audit.record(
      { actor: { ...SYSTEM, id: change.actor.id, label: `${change.actor.type} (X-Cms-Flow: stop)` } },
      {
        action: 'object_event.flow_stop',
        targetType: change.recordType,
        targetId: change.recordId,
        after: { eventType: type, actor: { type: change.actor.type, id: change.actor.id } },
      },
      trx,
    );
  }
}

function classIdOf(change: RecordChange): string | null {
  if (change.recordType !== 'object') return null;
  const cls = change.data?.class as { id?: unknown } | undefined;
  return typeof cls?.id === 'string' ? cls.id : null;
}

const pending = (s: CachedSubscription): PlannedDelivery => ({
  subscriptionId: s.id,
  status: 'pending',
  problem: null,
});
const stopped = (s: CachedSubscription, problem: string): PlannedDelivery => ({
  subscriptionId: s.id,
  status: 'stopped',
  problem,
});
