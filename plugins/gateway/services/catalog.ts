import type { Tx } from '../../../kernel/index.ts';
import { HttpError } from '../../../kernel/index.ts';
import type { OutboundHttp } from '../outbound/outbound-http.ts';
import type { GatewayCatalog, GatewayRouteRef } from '../ports.ts';
import type { Endpoint, Route } from '../model.ts';
import type { EndpointStore } from '../store/endpoint-store.ts';
import type { RouteStore } from '../store/route-store.ts';
import { isUuid } from './endpoint-service.ts';
import { matchTemplate, specificity, templateParams } from './path-template.ts';
import type { RouteCaller } from './route-caller.ts';

export function routeRef(endpoint: Endpoint, route: Route): GatewayRouteRef {
  return { endpointId: endpoint.id, endpointName: endpoint.name, routeId: route.id, method: route.method, pathTemplate: route.path, pathParams: templateParams(route.path) };
}

/** The `gatewayCatalog` port (ports.ts): built in core-api too, so it holds no connection of its own beyond the lazy undici agent. */
export function gatewayCatalog(deps: { endpoints: EndpointStore; routes: RouteStore; caller: RouteCaller; outbound: OutboundHttp }): GatewayCatalog {
  const load = async (endpointId: string, routeId: string, trx?: Tx) => {
    if (!isUuid(endpointId) || !isUuid(routeId)) return undefined;
    const [endpoint, route] = await Promise.all([deps.endpoints.findById(endpointId, trx), deps.routes.findById(routeId, trx)]);
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
    async matchRoute(endpointKey, method, path) {
      const endpoint = isUuid(endpointKey) ? await deps.endpoints.findById(endpointKey) : await deps.endpoints.findByName(endpointKey);
      if (!endpoint) return undefined;
      const wanted = method.toUpperCase();
      const candidates = (await deps.routes.listByEndpoint(endpoint.id)).filter((r) => r.method === wanted).sort((a, b) => specificity(b.path) - specificity(a.path));
      for (const route of candidates) {
        const params = matchTemplate(route.path, path);
        if (params) return { route: routeRef(endpoint, route), params };
      }
      return undefined;
    },
    fetchOutbound(url, init = {}) {
      return deps.outbound.fetch(url, init);
    },
  };
}
