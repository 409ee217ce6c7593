import path from 'node:path';
import { registerQueueMetrics } from './services/queue-metrics.ts';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../kernel/index.ts';
import { ObjectEventsConfig } from './config.ts';
import { RECORD_KINDS } from './events.ts';
import { purgeLeftovers } from './jobs.ts';
import { OBJECT_EVENTS_PERMISSIONS } from './permissions.ts';
import { DELIVERY_QUEUE } from './ports.ts';
import { subscriptionRoutes } from './routes/subscriptions.ts';
import { createObjectEventServices } from './services/index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Object event subscriptions: record changes (`object`, `asset`, `page`) become events, delivery rows
 * and one job per delivery (queue `object-events.deliveries`) in the writer's transaction, in every
 * process that writes records. Subscription routes are served by core-api; the queue is worked by the
 * `event-delivery` plugin (gateway), which drives the state machine through `objectEventQueue`.
 */
export default definePlugin({
  id: 'object-events',
  processes: ['core-api', 'gateway', 'asset-processor'],
  routesIn: ['core-api'],
  needs: ['db', 'clock', 'audit', 'recordHooks', 'metrics', 'jobs', 'notifications'],
  // Route checks need the gateway's `gatewayRoutes`; it is built in core-api (and the gateway).
  optional: ['gatewayRoutes'],
  permissions: OBJECT_EVENTS_PERMISSIONS,
  config: ObjectEventsConfig,
  migrations: path.join(here, 'migrations'),
  setup: (deps) => createObjectEventServices(deps),
  provides: {
    objectEventQueue: ({ services }) => services.queue,
  },
  async onStart({ services, recordHooks, metrics, db, log }) {
    registerQueueMetrics(metrics, db);
    if (!services.enabled) return;
    // Not a reason to stop: a process started before core-api migrated finds no table yet, and the
    // next start (or another process) adopts them.
    const adopted = await services.deliveries
      .queueUnqueued()
      .catch((err) => void log.warn({ err }, 'object events: queueing deliveries from before the job engine failed'));
    if (adopted) log.info({ adopted }, 'object events: deliveries stored before the job engine were queued');
    for (const recordType of RECORD_KINDS.keys())
      recordHooks.subscribe(recordType, (change, trx) => services.recorder.record(change, trx));
  },
  routes: (app, { services }) => subscriptionRoutes(app, services),
  // Worked by event-delivery (gateway); created with this plugin's migrations, as any process enqueues.
  enqueues: [DELIVERY_QUEUE],
  schedules: [
    {
      name: 'leftovers.purge',
      cron: '23 * * * *',
      run: ({ db, clock, pluginConfig }) =>
        purgeLeftovers(db, clock.now(), pluginConfig.OBJECT_EVENTS_LOOP_WINDOW_SECONDS * 1000),
    },
  ],
});
