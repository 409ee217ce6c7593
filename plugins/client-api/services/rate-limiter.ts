import {
  SharedRateLimitStore,
  type Clock,
  type Logger,
  type RateLimitStoreState,
  type RouteRateLimit,
} from '../../../kernel/index.ts';

/**
 * The per-client limit every /client/v1 route declares (`config.rateLimit`): one count per API client
 * and minute, over all its routes, with the client's own `requestsPerMinute` or the plugin default. A
 * request whose credential was refused is not counted. With REDIS_URL the counts live in the kernel's
 * shared store, so several gateway processes share one budget per client (per process while Redis
 * cannot answer); without it, in the process's memory.
 */
export function clientRateLimit(deps: {
  clock: Clock;
  log: Logger;
  redisUrl: string;
  prefix: string;
  defaultRequestsPerMinute: number;
}) {
  const shared = deps.redisUrl
    ? new SharedRateLimitStore({ url: deps.redisUrl, prefix: deps.prefix, clock: deps.clock, log: deps.log })
    : undefined;
  const rule: RouteRateLimit = {
    key: (request) => request.apiClient?.client.id ?? null,
    bucket: 'client-api:clients',
    windowMs: 60_000,
    limit: (request) => request.apiClient?.client.limits.requestsPerMinute ?? deps.defaultRequestsPerMinute,
    store: shared,
    message: (limit) => `Rate limit of ${limit} requests per minute reached`,
    code: 'CLIENT_RATE_LIMITED',
  };
  return {
    rule,
    state: (): RateLimitStoreState => shared?.state() ?? { store: 'memory', reachable: true },
    /** Connects to the shared store, waiting briefly so the first requests already share the budget. */
    ready: async () => shared?.ready(),
    close: async () => shared?.close(),
  };
}
