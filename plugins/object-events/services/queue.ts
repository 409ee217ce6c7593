import type { Clock, Logger } from '../../../kernel/index.ts';
import type { ClaimedDelivery, DeliveryOutcome, ObjectEventQueue } from '../ports.ts';
import type { DeliveryStore } from '../store/delivery-store.ts';
import { DELIVERIES_QUEUED } from '../store/event-store.ts';
import type { SubscriptionStore } from '../store/subscription-store.ts';
import type { DatabaseNotifications } from './notifications.ts';
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
  return {
    claim: (limit, leaseMs) => deps.deliveries.claim(limit, deps.clock.now(), leaseMs),

    async finish(delivery: ClaimedDelivery, outcome: DeliveryOutcome): Promise<void> {
      const now = deps.clock.now();
      if (outcome.kind === 'delivered') {
        await deps.deliveries.settle(delivery, { status: 'delivered', nextAttemptAt: null, problem: null });
        return;
      }
      const problem = outcome.problem.slice(0, PROBLEM_MAX);
      if (outcome.kind === 'gone') {
        const settled = await deps.deliveries.settle(delivery, { status: 'dead', nextAttemptAt: null, problem });
        if (!settled) return;
        if (await deps.subscriptions.disable(delivery.subscriptionId, now)) {
          deps.log.warn({ subscription: delivery.subscriptionId }, 'object events: receiver answered 410 Gone, subscription disabled');
        }
        await deps.deliveries.giveUpWaiting(delivery.subscriptionId, 'receiver answered 410 Gone; subscription disabled');
        return;
      }
      const waitMs = nextTryAfterMs(delivery.attempt, outcome.retryAfterMs);
      await deps.deliveries.settle(
        delivery,
        waitMs === null ? { status: 'dead', nextAttemptAt: null, problem } : { status: 'retrying', nextAttemptAt: new Date(now.getTime() + waitMs), problem },
      );
    },

    onQueued: (listener) => deps.notifications.on(DELIVERIES_QUEUED, listener),
  };
}
