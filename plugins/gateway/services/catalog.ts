import type { Tx } from '../../../kernel/index.ts';
import { HttpError } from '../../../kernel/index.ts';
import type { OutboundHttp } from '../outbound/outbound-http.ts';
import type { GatewayRouteRef, GatewayRoutes, OutboundFetch } from '../ports.ts';
import type { Endpoint, Route } from '../model.ts';
import type { EndpointStore } from '../store/endpoint-store.ts';
import type { RouteStore } from '../store/route-store.ts';
import { isUuid } from './endpoint-service.ts';
import { matchTemplate, specificity, templateParams } from './path-template.ts';
import type { CatalogCache } from './catalog-cache.ts';
import type { RouteCaller } from './route-caller.ts';

export function routeRef(endpoint: Endpoint, route: Route): GatewayRouteRef {
  return {
    endpointId: endpoint.id,
    endpointName: endpoint.name,
    routeId: route.id,
    method: route.method,
    pathTemplate: route.path,
    pathParams: templateParams(route.path),
  };
}

function matchIn(endpoint: Endpoint, routes: Route[], method: string, path: string) {
  const wanted = method.toUpperCase();
  const candidates = routes
    .filter((r) => r.method === wanted)
    .sort((a, b) => specificity(b.path) - specificity(a.path));
  for (const route of candidates) {
    const params = matchTemplate(route.path, path);
    if (params) return { route: routeRef(endpoint, route), params };
  }
  return undefined;
}

/** The `gatewayRoutes` port (ports.ts): built in core-api too, so it holds no connection of its own beyond the lazy undici agent. */
export function gatewayRoutes(deps: {
  endpoints: EndpointStore;
  routes: RouteStore;
  caller: RouteCaller;
  cache: CatalogCache;
}): GatewayRoutes {
  const load = async (endpointId: string, routeId: string, trx?: Tx) => {
    if (!isUuid(endpointId) || !isUuid(routeId)) return undefined;
    if (!trx) {
      // The call path: from memory (see CatalogCache for how fresh it is).
      let entry = await deps.cache.byEndpointId(endpointId);
      let route = entry?.routes.find((r) => r.id === routeId);
      // A route unknown to a cached entry may be newer than the entry: look once more before saying no.
      if (entry && !route) {
        entry = await deps.cache.reload(endpointId);
        route = entry?.routes.find((r) => r.id === routeId);
      }
      return entry && route ? { endpoint: entry.endpoint, route } : undefined;
    }
    // Inside a caller's transaction: what that transaction sees, never the cache.
    const [endpoint, route] = await Promise.all([
      deps.endpoints.findById(endpointId, trx),
      deps.routes.findById(routeId, trx),
    ]);
    return endpoint && route && route.endpointId === endpoint.id ? { endpoint, route } : undefined;
  };
  return {
    async findRoute(endpointId, routeId, trx) {
      const found = await load(endpointId, routeId, trx);
      return found && routeRef(found.endpoint, found.route);
    },
    async callRoute(endpointId, routeId, input) {
      const found = await load(endpointId, routeId);
      if (!found) throw new HttpError(404, 'ROUTE_NOT_FOUND', 'No such gateway route');
      return deps.caller.call(found.endpoint, found.route, input);
    },
    async streamRoute(endpointId, routeId, input) {
      const found = await load(endpointId, routeId);
      if (!found) throw new HttpError(404, 'ROUTE_NOT_FOUND', 'No such gateway route');
      return deps.caller.stream(found.endpoint, found.route, input);
    },
    async matchRoute(endpointKey, method, path) {
      const entry = isUuid(endpointKey)
        ? await deps.cache.byEndpointId(endpointKey)
        : await deps.cache.byEndpointName(endpointKey);
      if (!entry) return undefined;
      const found = matchIn(entry.endpoint, entry.routes, method, path);
      // No match in an entry older than a second: the route may be newer (at most one reload a second per endpoint).
      if (found || !deps.cache.olderThan(entry, 1000)) return found;
      const fresh = await deps.cache.reload(entry.endpoint.id);
      return fresh && matchIn(fresh.endpoint, fresh.routes, method, path);
    },
  };
}

/** The `outboundFetch` port (ports.ts): the gateway's outbound HTTP policy for a plain request, no credentials. */
export function outboundFetch(outbound: OutboundHttp, publicOnly: OutboundHttp): OutboundFetch {
  return {
    fetch: (url, { publicOnly: strict, ...init } = {}) => (strict ? publicOnly : outbound).fetch(url, init),
    refusal: (url, opts = {}) => (opts.publicOnly ? publicOnly : outbound).refusal(url),
    dispatcher: outbound.agent,
  };
}
