import type { AuditWriter, Clock, Db, Logger, ServiceMap } from '../../../kernel/index.ts';
import type { ObjectEventsConfig } from '../config.ts';
import { DeliveryStore } from '../store/delivery-store.ts';
import { SUBSCRIPTIONS_CHANGED, SubscriptionStore } from '../store/subscription-store.ts';
import { DeliveryLog } from './delivery-log.ts';
import { DatabaseNotifications } from '../../../kernel/index.ts';
import { deliveryQueue } from './queue.ts';
import { EventRecorder } from './recorder.ts';
import { SubscriptionCache } from './subscription-cache.ts';
import { SubscriptionService } from './subscription-service.ts';

export interface ObjectEventsDeps {
  db: Db;
  clock: Clock;
  audit: AuditWriter;
  log: Logger;
  gatewayRoutes?: ServiceMap['gatewayRoutes'];
  pluginConfig: import('@sinclair/typebox').Static<typeof ObjectEventsConfig>;
}

/** Builds the plugin's one set of services (setup). */
export function createObjectEventServices(deps: ObjectEventsDeps) {
  const { db, clock, audit, log, pluginConfig: cfg } = deps;
  const subscriptionStore = new SubscriptionStore(db);
  const deliveryStore = new DeliveryStore(db);
  const notifications = new DatabaseNotifications({ db, log });
  const cache = new SubscriptionCache({
    store: subscriptionStore,
    ttlMs: cfg.OBJECT_EVENTS_SUBSCRIPTION_CACHE_SECONDS * 1000,
  });
  notifications.on(SUBSCRIPTIONS_CHANGED, () => cache.invalidate());
  const subscriptions = new SubscriptionService({
    db,
    store: subscriptionStore,
    cache,
    clock,
    audit,
    gatewayRoutes: deps.gatewayRoutes,
    eventsEnabled: cfg.OBJECT_EVENTS_ENABLED,
  });
  return {
    enabled: cfg.OBJECT_EVENTS_ENABLED,
    notifications,
    cache,
    subscriptions,
    deliveries: new DeliveryLog({ db, store: deliveryStore, subscriptions, clock }),
    recorder: new EventRecorder({
      cache,
      clock,
      audit,
      log,
      loopGuard: {
        clientMax: cfg.OBJECT_EVENTS_LOOP_MAX,
        subscriptionMax: cfg.OBJECT_EVENTS_LOOP_SUB_MAX,
        windowMs: cfg.OBJECT_EVENTS_LOOP_WINDOW_SECONDS * 1000,
      },
    }),
    queue: deliveryQueue({ deliveries: deliveryStore, subscriptions: subscriptionStore, notifications, clock, log }),
  };
}

export type ObjectEventServices = ReturnType<typeof createObjectEventServices>;
