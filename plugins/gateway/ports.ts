import type { Tx } from '../../kernel/index.ts';

/**
 * What the gateway plugin offers other plugins (container name `gatewayCatalog`): its endpoints and
 * routes, and one way to call them with the endpoint's credentials under the outbound HTTP policy.
 * Built in core-api too (object-event subscriptions and page bindings check that a route exists),
 * so it must not open connections that only the gateway's own routes need.
 */
export interface GatewayRouteRef {
  endpointId: string;
  endpointName: string;
  routeId: string;
  method: string;
  /** Path template relative to the endpoint's base URL, e.g. `/users/{id}`. */
  pathTemplate: string;
  /** Names of the `{...}` segments of the template. */
  pathParams: string[];
}

export interface GatewayCallInput {
  /** Values for the template's `{...}` segments (each URL-encoded by the gateway). */
  params?: Record<string, string>;
  query?: Record<string, string | string[]>;
  /** Extra request headers; credentials are added by the gateway, client credentials never pass. */
  headers?: Record<string, string>;
  /** A Buffer/string is sent as is; anything else as JSON. */
  body?: unknown;
  /** Capped by the endpoint's own timeout. */
  timeoutMs?: number;
}

export interface GatewayAnswer {
  status: number;
  headers: Record<string, string>;
  /** At most the gateway's response cap; `truncated` says whether more was cut off. */
  body: Buffer;
  truncated: boolean;
}

export interface GatewayCatalog {
  /** The route `routeId` of endpoint `endpointId`, or undefined when either does not exist. */
  findRoute(endpointId: string, routeId: string, trx?: Tx): Promise<GatewayRouteRef | undefined>;
  /**
   * Calls a configured route: template filled, credentials added, endpoint rate limit and timeout,
   * outbound policy checked after DNS resolution. Rejects with an HttpError (502 UPSTREAM_FAILED,
   * 504 UPSTREAM_TIMEOUT, 403 OUTBOUND_REFUSED, 404 ROUTE_NOT_FOUND) when no answer was received.
   */
  callRoute(endpointId: string, routeId: string, input: GatewayCallInput): Promise<GatewayAnswer>;
  /**
   * The route of an endpoint (by id or name) whose method and path template match a concrete call,
   * e.g. `GET /users/42` matches `GET /users/{id}` with `params: { id: '42' }` (client passthrough).
   */
  matchRoute(
    endpoint: string,
    method: string,
    path: string,
  ): Promise<{ route: GatewayRouteRef; params: Record<string, string> } | undefined>;
  /**
   * A plain outbound request under the same policy (loopback/private ranges, address pinned after
   * DNS resolution, redirects re-checked, timeouts, body cap), e.g. an identity provider's discovery
   * document and keys. No credentials are added.
   */
  fetchOutbound(
    url: string,
    init?: {
      method?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      timeoutMs?: number;
      maxBytes?: number;
    },
  ): Promise<GatewayAnswer>;
}

declare module '../../kernel/index.ts' {
  interface PluginServices {
    gatewayCatalog: GatewayCatalog;
  }
}
