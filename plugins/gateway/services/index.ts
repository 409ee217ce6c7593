import type { RouteRateLimit } from '../../../kernel/index.ts';
import type {
  CacheNotices,
  Clock,
  Db,
  ExtensionFolders,
  Logger,
  OutboundGuard,
  SecretBox,
  SharedState,
} from '../../../kernel/index.ts';
import type { Static } from '@sinclair/typebox';
import type { GatewayConfig } from '../config.ts';
import type { GatewayBindingSource } from '../ports.ts';
import { AddressPolicy } from '../outbound/address-policy.ts';
import { OutboundHttp, type Resolver } from '../outbound/outbound-http.ts';
import { EndpointStore } from '../store/endpoint-store.ts';
import { RouteStore } from '../store/route-store.ts';
import { CatalogCache } from './catalog-cache.ts';
import { gatewayRoutes, outboundFetch } from './catalog.ts';
import { EndpointLimiters } from './endpoint-limiters.ts';
import { EndpointService } from './endpoint-service.ts';
import { OAuth2Tokens } from './oauth2-tokens.ts';
import { Presets } from './presets.ts';
import { RouteCaller } from './route-caller.ts';
import { RouteService } from './route-service.ts';
import { SiteBindings } from './site-bindings.ts';

/** The kernel cache notice of the catalog (endpoints, their routes and credentials). */
const CATALOG_CACHE = 'gateway.catalog';

export interface GatewayDeps {
  db: Db;
  clock: Clock;
  secretBox: SecretBox;
  outboundGuard: OutboundGuard;
  sharedState: SharedState;
  cacheNotices: CacheNotices;
  extensions: ExtensionFolders;
  config: { production: boolean };
  gatewayBindingSources: readonly GatewayBindingSource[];
  log: Logger;
  pluginConfig: Static<typeof GatewayConfig>;
}

/**
 * The gateway's one set of services. Nothing here opens a connection: the undici agent connects on
 * the first call, so core-api (which builds these for `gatewayRoutes`) stays connection-free.
 * `resolve` lets tests point host names at chosen addresses.
 */
export function createGatewayServices(deps: GatewayDeps, opts: { resolve?: Resolver } = {}) {
  const cfg = deps.pluginConfig;
  const policy = new AddressPolicy({
    refuseLoopback: deps.config.production,
    allowPrivate: cfg.OUTBOUND_ALLOW_PRIVATE,
    allowHosts: cfg.OUTBOUND_ALLOW_HOSTS.split(',')
      .map((h) => h.trim())
      .filter(Boolean),
  });
  const connection = {
    guard: deps.outboundGuard,
    resolve: opts.resolve,
    connectTimeoutMs: cfg.OUTBOUND_CONNECT_TIMEOUT_MS,
    timeoutMs: cfg.OUTBOUND_TIMEOUT_MS,
    maxResponseBytes: cfg.OUTBOUND_MAX_RESPONSE_BYTES,
    maxRedirects: cfg.OUTBOUND_MAX_REDIRECTS,
  };
  const outbound = new OutboundHttp({ policy, ...connection });
  // For URLs an anonymous visitor chose (a push endpoint): public addresses only, whatever
  // OUTBOUND_ALLOW_PRIVATE and OUTBOUND_ALLOW_HOSTS open for the endpoints administrators configure.
  const publicOnly = new OutboundHttp({
    policy: new AddressPolicy({ refuseLoopback: true, allowPrivate: false, allowHosts: [] }),
    ...connection,
  });
  const presets = new Presets(deps.extensions.files('presets', '.json'));
  const endpointStore = new EndpointStore(deps.db);
  const routeStore = new RouteStore(deps.db);
  const tokens = new OAuth2Tokens({ outbound, secretBox: deps.secretBox, clock: deps.clock });
  const limiters = new EndpointLimiters(cfg.GATEWAY_ENDPOINT_MAX_IN_FLIGHT, deps.sharedState);
  const cache = new CatalogCache({
    endpoints: endpointStore,
    routes: routeStore,
    clock: deps.clock,
    ttlMs: 5_000,
    maxEntries: 1_000,
  });
  const drop = (endpointId: string) => {
    if (!endpointId) return cache.forgetAll();
    cache.forget(endpointId);
    tokens.invalidate(endpointId);
    limiters.forget(endpointId);
  };
  // Every process (core-api reads the catalog too) drops an endpoint a write in any of them changed:
  // its routes, settings and credentials, within a second rather than the cache's lifetime.
  deps.cacheNotices.on(CATALOG_CACHE, drop);
  const changed = (endpointId: string) => {
    drop(endpointId);
    deps.cacheNotices
      .changed(CATALOG_CACHE, endpointId)
      .catch((err) => deps.log.warn({ err }, 'gateway: catalog change notice not sent (others see it within 5 s)'));
  };
  const caller = new RouteCaller({ outbound, secretBox: deps.secretBox, tokens, limiters });
  const endpoints = new EndpointService({
    db: deps.db,
    endpoints: endpointStore,
    routes: routeStore,
    secretBox: deps.secretBox,
    presets,
    defaultTimeoutMs: cfg.OUTBOUND_TIMEOUT_MS,
    changed,
  });
  const routes = new RouteService({ db: deps.db, routes: routeStore, endpoints, caller, changed });
  return {
    outbound,
    presets,
    endpoints,
    routes,
    caller,
    endpointStore,
    routeStore,
    gatewayRoutes: gatewayRoutes({ endpoints: endpointStore, routes: routeStore, caller, cache }),
    outboundFetch: outboundFetch(outbound, publicOnly),
    siteBindings: new SiteBindings({ sources: deps.gatewayBindingSources, cache, caller }),
    /** resolve and submit share one count per client address (`config.rateLimit`). */
    publicRateLimit: {
      key: 'address',
      bucket: 'gateway:published',
      windowMs: 60_000,
      limit: cfg.GATEWAY_PUBLIC_RATE_LIMIT_PER_MINUTE,
      message: 'Too many gateway requests from this address; try again later',
    } satisfies RouteRateLimit,
    async stop() {
      await limiters.stop();
      await outbound.close();
      await publicOnly.close();
    },
  };
}

export type GatewayServices = ReturnType<typeof createGatewayServices>;
