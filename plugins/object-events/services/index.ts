import type { AuditWriter, Clock, DatabaseNotifications, Db, Jobs, Logger, ServiceMap } from '../../../kernel/index.ts';
import type { ObjectEventsConfig } from '../config.ts';
import { DeliveryStore } from '../store/delivery-store.ts';
import { SUBSCRIPTIONS_CHANGED, SubscriptionStore } from '../store/subscription-store.ts';
import { DeliveryLog } from './delivery-log.ts';
import { deliveryQueue } from './queue.ts';
import { EventRecorder } from './recorder.ts';
import { SubscriptionCache } from './subscription-cache.ts';
import { SubscriptionService } from './subscription-service.ts';

export interface ObjectEventsDeps {
  db: Db;
  clock: Clock;
  audit: AuditWriter;
  log: Logger;
  jobs: Jobs;
  notifications: DatabaseNotifications;
  gatewayRoutes?: ServiceMap['gatewayRoutes'];
  pluginConfig: import('@sinclair/typebox').Static<typeof ObjectEventsConfig>;
}

/** Builds the plugin's one set of services (setup). */
export function createObjectEventServices(deps: ObjectEventsDeps) {
  const { db, clock, audit, log, jobs, notifications, pluginConfig: cfg } = deps;
  const subscriptionStore = new SubscriptionStore(db);
  const deliveryStore = new DeliveryStore(db);
  const cache = new SubscriptionCache({
    store: subscriptionStore,
    ttlMs: cfg.OBJECT_EVENTS_SUBSCRIPTION_CACHE_SECONDS * 1000,
  });
  // Another process changed a subscription: drop the cached list (the kernel's LISTEN connection).
  notifications.on(SUBSCRIPTIONS_CHANGED, () => cache.invalidate());
  const subscriptions = new SubscriptionService({
    db,
    store: subscriptionStore,
    cache,
    clock,
    audit,
    gatewayRoutes: deps.gatewayRoutes,
    jobs,
    eventsEnabled: cfg.OBJECT_EVENTS_ENABLED,
  });
  return {
    enabled: cfg.OBJECT_EVENTS_ENABLED,
    cache,
    subscriptions,
    deliveries: new DeliveryLog({ db, store: deliveryStore, subscriptions, clock, jobs }),
    recorder: new EventRecorder({
      cache,
      jobs,
      clock,
      audit,
      log,
      loopGuard: {
        clientMax: cfg.OBJECT_EVENTS_LOOP_MAX,
        subscriptionMax: cfg.OBJECT_EVENTS_LOOP_SUB_MAX,
        windowMs: cfg.OBJECT_EVENTS_LOOP_WINDOW_SECONDS * 1000,
      },
    }),
    queue: deliveryQueue({ deliveries: deliveryStore, subscriptions: subscriptionStore, clock, log }),
  };
}

export type ObjectEventServices = ReturnType<typeof createObjectEventServices>;
