import { definePlugin } from '../../kernel/index.ts';
import { EventDeliveryConfig } from './config.ts';
import { runDeliveryTry, type DeliveryJob } from './services/deliveries.ts';
import { RETRY_WAITS_MS } from './services/retry-schedule.ts';
import { DeliverySender, deliveryOutcomes } from './services/sender.ts';

/**
 * Sends object event deliveries, in the gateway process only: works the job queue
 * `object-events.deliveries` (the `object-events` plugin enqueues one job per delivery with the write)
 * and sends each delivery to the endpoint and route of its subscription through
 * `gatewayRoutes.callRoute` (endpoint credentials, outbound policy). No routes, no tables of its own:
 * the delivery rows are read and written through `objectEventQueue`.
 */
export default definePlugin({
  id: 'event-delivery',
  processes: ['gateway'],
  needs: ['objectEventQueue', 'clock', 'config', 'metrics', 'jobs'],
  // Without the gateway plugin there is nothing to send through: deliveries wait for a process that can.
  optional: ['gatewayRoutes'],
  config: EventDeliveryConfig,
  setup: ({ gatewayRoutes, clock, config, log, metrics, pluginConfig }) => ({
    enabled: pluginConfig.OBJECT_EVENTS_ENABLED && gatewayRoutes !== undefined,
    sender:
      gatewayRoutes &&
      new DeliverySender(
        { gatewayRoutes, clock, log },
        {
          instance: new URL(config.PUBLIC_BASE_URL).hostname,
          calls: pluginConfig.OBJECT_EVENTS_CONCURRENCY,
          timeoutMs: pluginConfig.OBJECT_EVENTS_SEND_TIMEOUT_SECONDS * 1000,
        },
      ),
    outcomes: deliveryOutcomes(metrics),
  }),
  onStart({ services, log }) {
    if (!services.sender)
      log.warn('object events: no gatewayRoutes in this process, deliveries are not sent from here');
  },
  queues: [
    {
      // Declared by object-events too (`enqueues`): the recording side writes into it.
      name: 'object-events.deliveries',
      // Twice the calls allowed at once (the sender keeps to OBJECT_EVENTS_CONCURRENCY calls): a try's
      // database round trips overlap the other tries' calls instead of holding a call slot.
      concurrency: ({ pluginConfig }) => 2 * pluginConfig.OBJECT_EVENTS_CONCURRENCY,
      // A try may wait for one call to end before its own: two send timeouts and a margin, so a slow
      // receiver's try ends with its own "no answer" problem.
      timeoutMs: ({ pluginConfig }) => 2 * pluginConfig.OBJECT_EVENTS_SEND_TIMEOUT_SECONDS * 1000 + 3_000,
      retryWaitsMs: RETRY_WAITS_MS,
      // A burst of short sends: four per free slot in one fetch (the old worker's claim did the same).
      prefetch: 4,
      run: (job, { services, objectEventQueue, jobs, clock }) =>
        runDeliveryTry(job as typeof job & { payload: DeliveryJob }, {
          queue: objectEventQueue,
          jobs,
          clock,
          sender: services.sender,
          enabled: services.enabled,
          outcomes: services.outcomes,
        }),
      onFailure: (job, failure, trx, { objectEventQueue }) =>
        objectEventQueue.failed(job.payload as DeliveryJob, failure, trx),
    },
  ],
});
