import type { Clock, Logger } from '../../../kernel/index.ts';
import type { ClaimedDelivery, DeliveryOutcome, ObjectEventQueue } from '../ports.ts';
import type { DeliveryStore } from '../store/delivery-store.ts';
import { DELIVERIES_QUEUED } from '../store/event-store.ts';
import type { SubscriptionStore } from '../store/subscription-store.ts';
import type { DatabaseNotifications } from '../../../kernel/index.ts';
import { nextTryAfterMs } from './retry-schedule.ts';

const PROBLEM_MAX = 300;

/** The delivery state machine as the worker drives it (spec "Event delivery"). */
export function deliveryQueue(deps: {
  deliveries: DeliveryStore;
  subscriptions: SubscriptionStore;
  notifications: DatabaseNotifications;
  clock: Clock;
  log: Logger;
}): ObjectEventQueue {
  const settle = settleInBatches(deps.deliveries);
  return {
    claim: (limit, leaseMs) => deps.deliveries.claim(limit, deps.clock.now(), leaseMs),

    async finish(delivery: ClaimedDelivery, outcome: DeliveryOutcome): Promise<void> {
      const now = deps.clock.now();
      if (outcome.kind === 'delivered')
        return settle({ delivery, status: 'delivered', nextAttemptAt: null, problem: null });
      const problem = outcome.problem.slice(0, PROBLEM_MAX);
      if (outcome.kind === 'gone') {
        const settled = await deps.deliveries.settle(delivery, { status: 'dead', nextAttemptAt: null, problem });
        if (!settled) return;
        if (await deps.subscriptions.disable(delivery.subscriptionId, now)) {
          deps.log.warn(
            { subscription: delivery.subscriptionId },
            'object events: receiver answered 410 Gone, subscription disabled',
          );
        }
        await deps.deliveries.giveUpWaiting(
          delivery.subscriptionId,
          'receiver answered 410 Gone; subscription disabled',
        );
        return;
      }
      const waitMs = nextTryAfterMs(delivery.attempt, outcome.retryAfterMs);
      return settle(
        waitMs === null
          ? { delivery, status: 'dead', nextAttemptAt: null, problem }
          : { delivery, status: 'retrying', nextAttemptAt: new Date(now.getTime() + waitMs), problem },
      );
    },

    release: (deliveries) => deps.deliveries.release(deliveries),

    onQueued: (listener) => deps.notifications.on(DELIVERIES_QUEUED, listener),
  };
}

type Settlement = Parameters<DeliveryStore['settleMany']>[0][number];

/**
 * Outcomes that arrive together are written in one statement: the worker's round trips per delivery
 * drop from two to little more than one claim per batch.
 */
function settleInBatches(store: DeliveryStore): (item: Settlement) => Promise<void> {
  let batch: { item: Settlement; done: (err?: unknown) => void }[] = [];
  const flush = async () => {
    const items = batch;
    batch = [];
    try {
      await store.settleMany(items.map((i) => i.item));
      for (const i of items) i.done();
    } catch (err) {
      for (const i of items) i.done(err);
    }
  };
  return (item) =>
    new Promise<void>((resolve, reject) => {
      if (batch.length === 0) setImmediate(() => void flush());
      batch.push({ item, done: (err) => (err ? reject(err) : resolve()) });
    });
}
