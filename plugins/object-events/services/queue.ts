import type { Clock, Logger } from '../../../kernel/index.ts';
import type { DeliveryJob, DeliveryToSend, ObjectEventQueue } from '../ports.ts';
import type { DeliveryStore, Settlement } from '../store/delivery-store.ts';
import type { SubscriptionStore } from '../store/subscription-store.ts';

const PROBLEM_MAX = 300;

/** The delivery state machine as the deliveries queue drives it (spec "Event delivery"). */
export function deliveryQueue(deps: {
  deliveries: DeliveryStore;
  subscriptions: SubscriptionStore;
  clock: Clock;
  log: Logger;
}): ObjectEventQueue {
  const begin = inBatches<DeliveryJob, DeliveryToSend | undefined>(async (jobs) => {
    const rows = new Map((await deps.deliveries.beginTries(jobs, deps.clock.now())).map((r) => [r.id, r]));
    return jobs.map((job) => rows.get(job.deliveryId));
  });
  const settle = inBatches<Settlement, void>(async (items) => {
    await deps.deliveries.settleMany(items);
    return items.map(() => undefined);
  });
  return {
    begin,

    delivered: (job) => settle({ job, status: 'delivered', nextAttemptAt: null, problem: null }),

    failed: (job, { problem, nextRunAt }, trx) =>
      deps.deliveries.settleMany(
        [
          {
            job,
            status: nextRunAt ? 'retrying' : 'dead',
            nextAttemptAt: nextRunAt ?? null,
            problem: problem.slice(0, PROBLEM_MAX),
          },
        ],
        trx,
      ),

    async gone(delivery, problem) {
      if (await deps.subscriptions.disable(delivery.subscriptionId, deps.clock.now())) {
        deps.log.warn(
          { subscription: delivery.subscriptionId },
          'object events: receiver answered 410 Gone, subscription disabled',
        );
      }
      await deps.deliveries.giveUpWaiting(delivery.subscriptionId, problem.slice(0, PROBLEM_MAX));
    },
  };
}

/**
 * Calls that arrive in the same turn of the event loop share one statement: the job engine starts the
 * tries it fetched together, so a burst costs one round trip per fetch instead of one per delivery.
 * `runMany` answers in the order of its items.
 */
function inBatches<I, O>(runMany: (items: I[]) => Promise<O[]>): (item: I) => Promise<O> {
  let batch: { item: I; resolve: (out: O) => void; reject: (err: unknown) => void }[] = [];
  const flush = async () => {
    const items = batch;
    batch = [];
    try {
      const out = await runMany(items.map((i) => i.item));
      for (const [n, i] of items.entries()) i.resolve(out[n]);
    } catch (err) {
      for (const i of items) i.reject(err);
    }
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      if (batch.length === 0) setImmediate(() => void flush());
      batch.push({ item, resolve, reject });
    });
}
