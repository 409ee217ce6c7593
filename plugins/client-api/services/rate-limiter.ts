import type { RateLimitStore, RateLimitStoreState, RouteRateLimit } from '../../../kernel/index.ts';

/**
 * The per-client limit every /client/v1 route declares (`config.rateLimit`): one count per API client
 * and minute, over all its routes, with the client's own `requestsPerMinute` or the plugin default. A
 * request whose credential was refused is not counted. The counts live in the kernel's rate-limit
 * store: shared by every gateway and core-api process (PostgreSQL, or Redis with REDIS_URL; per
 * process while Redis cannot answer).
 */
export function clientRateLimit(deps: {
  store: RateLimitStore & { state(): RateLimitStoreState };
  defaultRequestsPerMinute: number;
}) {
  const rule: RouteRateLimit = {
    key: (request) => request.apiClient?.client.id ?? null,
    bucket: 'client-api:clients',
    windowMs: 60_000,
    limit: (request) => request.apiClient?.client.limits.requestsPerMinute ?? deps.defaultRequestsPerMinute,
    store: deps.store,
    message: (limit) => `Rate limit of ${limit} requests per minute reached`,
    code: 'CLIENT_RATE_LIMITED',
  };
  return { rule, state: (): RateLimitStoreState => deps.store.state() };
}
