import { InFlightLimit, type PluginDeps } from '../../../kernel/index.ts';
import type { ClientApiConfig } from '../config.ts';
import { ClientAuthenticator } from './authenticator.ts';
import { ClientAdmin } from './client-admin.ts';
import { directFetcher, IdentityProviders, type DocumentFetcher } from './identity-providers.ts';
import { clientRateLimit } from './rate-limiter.ts';

/** The kernel cache notice of the key -> client lookups (every process drops them on a change). */
const CLIENT_KEYS_CACHE = 'client-api.keys';

export type ClientApiDeps = PluginDeps<
  'db' | 'clock' | 'config' | 'dataObjects' | 'outboundGuard' | 'rateLimitStore' | 'cacheNotices',
  'gatewayRoutes' | 'outboundFetch',
  typeof ClientApiConfig
>;

const OUTBOUND_TIMEOUT_MS = 5_000;
const OUTBOUND_MAX_BYTES = 256 * 1024;

export function createClientApiServices(deps: ClientApiDeps) {
  const { db, clock, log, pluginConfig } = deps;
  // The gateway's outbound policy (private ranges, pinned DNS) when it is loaded; a direct fetch otherwise.
  const outbound = deps.outboundFetch;
  const fetcher: DocumentFetcher = outbound
    ? async (url) => {
        const answer = await outbound.fetch(url, {
          method: 'GET',
          headers: { accept: 'application/json' },
          timeoutMs: OUTBOUND_TIMEOUT_MS,
          maxBytes: OUTBOUND_MAX_BYTES,
        });
        if (answer.truncated) throw new Error(`${url} answered more than ${OUTBOUND_MAX_BYTES} bytes`);
        return { status: answer.status, body: answer.body };
      }
    : async (url) => {
        // The direct fetch asks the kernel's guard itself (the gateway's connector does on the other path).
        deps.outboundGuard.assertAllowed(new URL(url).hostname);
        return directFetcher(url);
      };
  const providers = new IdentityProviders({
    clock,
    log,
    fetcher: () => fetcher,
    cacheSeconds: pluginConfig.CLIENT_JWKS_CACHE_SECONDS,
  });
  const authenticator = new ClientAuthenticator({ db, clock, providers, cacheMs: pluginConfig.CLIENT_AUTH_CACHE_MS });
  deps.cacheNotices.on(CLIENT_KEYS_CACHE, () => authenticator.invalidate());
  const admin = new ClientAdmin({
    db,
    clock,
    authenticator,
    production: deps.config.production,
    announceChange: () => deps.cacheNotices.changed(CLIENT_KEYS_CACHE),
    classNames: () => deps.dataObjects.classNames(),
  });
  const rateLimiter = clientRateLimit({
    store: deps.rateLimitStore,
    defaultRequestsPerMinute: pluginConfig.CLIENT_DEFAULT_REQUESTS_PER_MINUTE,
  });
  return {
    admin,
    authenticator,
    rateLimiter,
    providers,
    dataObjects: deps.dataObjects,
    gatewayRoutes: deps.gatewayRoutes,
    defaultRequestsPerMinute: pluginConfig.CLIENT_DEFAULT_REQUESTS_PER_MINUTE,
    /** Gateway calls (passthrough, automations) running per client in this process. */
    inFlight: new InFlightLimit(),
    maxInFlight: pluginConfig.CLIENT_MAX_IN_FLIGHT,
  };
}

export type ClientApiServices = ReturnType<typeof createClientApiServices>;
