import { definePlugin } from '../../kernel/index.ts';
import { EventDeliveryConfig } from './config.ts';
import { DeliveryWorker, deliveryOutcomes } from './services/worker.ts';

/**
 * The object events delivery worker, in the gateway process only: sends the deliveries the
 * `object-events` plugin queues (through its `objectEventQueue`) to the endpoint and route of each
 * subscription through `gatewayRoutes.callRoute` (endpoint credentials, outbound policy). No routes,
 * no tables of its own.
 */
export default definePlugin({
  id: 'event-delivery',
  processes: ['gateway'],
  needs: ['objectEventQueue', 'clock', 'config', 'metrics'],
  // Without the gateway plugin there is nothing to send through: the worker stays off.
  optional: ['gatewayRoutes'],
  config: EventDeliveryConfig,
  setup: ({ objectEventQueue, gatewayRoutes, clock, config, log, metrics, pluginConfig }) => ({
    enabled: pluginConfig.OBJECT_EVENTS_ENABLED && gatewayRoutes !== undefined,
    worker:
      gatewayRoutes &&
      new DeliveryWorker(
        { queue: objectEventQueue, gatewayRoutes, clock, log, outcomes: deliveryOutcomes(metrics) },
        {
          concurrency: pluginConfig.OBJECT_EVENTS_CONCURRENCY,
          pollMs: pluginConfig.OBJECT_EVENTS_POLL_MS,
          leaseMs: pluginConfig.OBJECT_EVENTS_CLAIM_SECONDS * 1000,
          instance: new URL(config.PUBLIC_BASE_URL).hostname,
        },
      ),
  }),
  onStart({ services, objectEventQueue, log }) {
    const worker = services.worker;
    if (!services.enabled || !worker) {
      if (!services.worker)
        log.warn('object events: no gatewayRoutes in this process, deliveries are not sent from here');
      return;
    }
    objectEventQueue.onQueued(() => worker.wake());
    worker.start();
  },
  onStop: ({ services }) => services.worker?.stop(),
});
