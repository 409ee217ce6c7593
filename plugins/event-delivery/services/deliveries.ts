import { JobFailure, type Clock, type Jobs, type JobRun, type ServiceMap } from '../../../kernel/index.ts';
import { retryAfterWithinBounds } from './retry-schedule.ts';
import type { DeliverySender, SendOutcome } from './sender.ts';

type Queue = ServiceMap['objectEventQueue'];
export type DeliveryJob = Parameters<Queue['begin']>[0];

/** Put off in a process that does not send (events off, or no gatewayRoutes here). */
const NOT_HERE_WAIT_MS = 60_000;

/**
 * One try of a job of the deliveries queue: begins the try on the delivery row, sends, and records a
 * delivery; a failure is thrown as a `JobFailure` so the job engine schedules the next try (or gives
 * up) and writes `retrying`/`dead` through `onFailure` in the same transaction. A process killed during
 * a try leaves the job running until pg-boss takes it back: the delivery is then sent again (at least once).
 */
export async function runDeliveryTry(
  job: JobRun<DeliveryJob>,
  deps: {
    queue: Queue;
    jobs: Jobs;
    clock: Clock;
    sender: DeliverySender | undefined;
    enabled: boolean;
    outcomes?: { inc(labels: { outcome: SendOutcome['kind'] }): void };
  },
): Promise<void> {
  if (!deps.enabled || !deps.sender) {
    // Another process queued it; this one sends nothing, so the try is not spent: the job waits again.
    await deps.jobs.enqueue(job.queue, job.payload, { runAt: new Date(deps.clock.now().getTime() + NOT_HERE_WAIT_MS) });
    return;
  }
  const delivery = await deps.queue.begin(job.payload);
  if (!delivery) return;
  const outcome = await deps.sender.send(delivery);
  deps.outcomes?.inc({ outcome: outcome.kind });
  if (outcome.kind === 'delivered') return deps.queue.delivered(job.payload);
  if (outcome.kind === 'gone') {
    await deps.queue.gone(delivery, outcome.problem);
    throw new JobFailure(outcome.problem, { final: true });
  }
  throw new JobFailure(outcome.problem, { retryAfterMs: retryAfterWithinBounds(outcome.retryAfterMs) });
}
