import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { Tx, UserActor } from '../../kernel/index.ts';

/**
 * What the gateway plugin offers other plugins:
 * - `gatewayRoutes`: its endpoints' routes, found by id or matched against a concrete call, and called
 *   with the endpoint's credentials under the outbound HTTP policy;
 * - `outboundFetch`: a plain outbound request under the same policy, without credentials;
 * - the registry `gatewayBindingSources`: where published sites' bindings come from (the content
 *   plugin contributes its pages' bindings), read by `/api/v1/gateway/resolve` and `/submit`.
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
  /**
   * Bytes of the answer body kept (`callRoute`), at most the gateway's cap (`OUTBOUND_MAX_RESPONSE_BYTES`):
   * a caller that reads only the status asks for few, so a large answer holds no memory.
   */
  maxBytes?: number;
}

export interface GatewayAnswer {
  status: number;
  headers: Record<string, string>;
  /** At most the gateway's response cap; `truncated` says whether more was cut off. */
  body: Buffer;
  truncated: boolean;
}

/** An answer passed on as it arrives (`streamRoute`). */
export interface GatewayStreamedAnswer {
  status: number;
  headers: Record<string, string>;
  /**
   * The body as the upstream sends it. It fails with 502 `UPSTREAM_TOO_LARGE` once it passes the
   * gateway's cap. The caller reads it to its end or destroys it: the call holds its endpoint's
   * in-flight slot until then. A small answer (a declared length of at most 16 KiB) arrives whole,
   * as a Buffer, and holds no slot any more.
   */
  body: Readable | Buffer;
  /** The upstream's declared `Content-Length` (never above the cap: a larger one is refused before the body). */
  length?: number;
}

/** Container name `gatewayRoutes`. */
export interface GatewayRoutes {
  /** The route `routeId` of endpoint `endpointId`, or undefined when either does not exist. */
  findRoute(endpointId: string, routeId: string, trx?: Tx): Promise<GatewayRouteRef | undefined>;
  /**
   * Calls a configured route: template filled, credentials added, endpoint rate limit and timeout,
   * outbound policy checked after DNS resolution. Rejects with an HttpError (502 UPSTREAM_FAILED,
   * 504 UPSTREAM_TIMEOUT, 403 OUTBOUND_REFUSED, 404 ROUTE_NOT_FOUND, 429 ENDPOINT_BUSY or
   * ENDPOINT_RATE_LIMITED) when no answer was received.
   */
  callRoute(endpointId: string, routeId: string, input: GatewayCallInput): Promise<GatewayAnswer>;
  /**
   * Like `callRoute`, but the answer's body is streamed instead of read into memory: resolves once
   * the upstream's status and headers arrived. An answer declaring a `Content-Length` above the cap
   * rejects with 502 `UPSTREAM_TOO_LARGE` before any of it is read; more calls to the endpoint than
   * `GATEWAY_ENDPOINT_MAX_IN_FLIGHT` at once reject with 429 `ENDPOINT_BUSY` (`Retry-After`).
   */
  streamRoute(endpointId: string, routeId: string, input: GatewayCallInput): Promise<GatewayStreamedAnswer>;
  /**
   * The route of an endpoint (by id or name) whose method and path template match a concrete call,
   * e.g. `GET /users/42` matches `GET /users/{id}` with `params: { id: '42' }` (client passthrough).
   */
  matchRoute(
    endpoint: string,
    method: string,
    path: string,
  ): Promise<{ route: GatewayRouteRef; params: Record<string, string> } | undefined>;
}

/** Container name `outboundFetch`. */
export interface OutboundFetch {
  /**
   * A plain outbound request under the gateway's outbound HTTP policy (loopback/private ranges, address pinned after
   * DNS resolution, redirects re-checked, timeouts, body cap), e.g. an identity provider's discovery
   * document and keys. No credentials are added.
   */
  fetch(
    url: string,
    init?: {
      method?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      timeoutMs?: number;
      maxBytes?: number;
      /**
       * For a URL an anonymous visitor chose (a push subscription's endpoint): every address, each
       * redirect's included, must be public; loopback, private, link-local, metadata and reserved
       * addresses are refused whatever `OUTBOUND_ALLOW_PRIVATE` and `OUTBOUND_ALLOW_HOSTS` allow.
       */
      publicOnly?: boolean;
      /**
       * Redirects followed for this call, at most `OUTBOUND_MAX_REDIRECTS` (0: none, the 3xx is the
       * answer). Only `authorization` and `cookie` are dropped when a redirect changes the origin: a
       * call with another credential header (an API token) passes 0.
       */
      maxRedirects?: number;
    },
  ): Promise<GatewayAnswer>;
  /**
   * Why the policy would refuse a call to `url` (the kernel's outbound guard first, then each address
   * the host resolves to against the loopback/private/link-local rules), or undefined when it would
   * allow it. Resolves the name but opens no connection: for checking a URL when it is stored (a push
   * subscription's endpoint), long before the call. The call itself is checked again when it is made.
   */
  refusal(url: string, opts?: { publicOnly?: boolean }): Promise<string | undefined>;
  /**
   * The undici dispatcher under the same policy, for a caller that runs its own requests (a streamed
   * answer, its own retries and timeouts): each new connection asks the kernel's outbound guard,
   * resolves the host once, checks the address and connects to that very address (no second lookup,
   * so DNS rebinding cannot slip past the check). A refusal rejects the request with an error whose
   * `code` is `OUTBOUND_REFUSED`. No redirect is followed and no answer is capped: the caller does both.
   */
  readonly dispatcher: Dispatcher;
}

/** Applied by the gateway to an upstream JSON answer before a published site sees it. */
export interface BindingResultFilter {
  /** Dot path into the answer whose value is used (e.g. `data.items`); default: the whole answer. */
  path?: string;
  /** Fields kept from each row (or from the object); default: all. */
  pick?: string[];
  /** Output name by field name, applied after `pick`. */
  rename?: Record<string, string>;
  /** Rows kept when the value is an array (1-1000). */
  limit?: number;
}

/** One call a published site may make through the gateway, by its id only (never a URL or a route). */
export interface GatewayBinding {
  id: string;
  websiteId: string;
  pageId: string | null;
  endpointId: string;
  routeId: string;
  /** Fixed parameters stored with the page: path template values and query values. */
  parameters: { path?: Record<string, string>; query?: Record<string, string> };
  resultFilter: BindingResultFilter | null;
  /** `resolve` reads (GET-like), `submit` sends a form (POST-like). */
  mode: 'resolve' | 'submit';
  /**
   * True when the content holding the binding is published: only then does it answer anonymous
   * callers of `/resolve` and `/submit`. Unset or false (a draft page) counts as not live: such a
   * binding answers like an unknown one there, and only a preview may use it (`mayPreview`).
   */
  live?: boolean;
}

/**
 * An item of the registry `gatewayBindingSources`: a plugin that stores bindings (the content plugin,
 * which assigns them when a page is saved). The gateway asks each source in turn for a binding id and
 * checks the site key with the source that knew it.
 */
export interface GatewayBindingSource {
  findBinding(bindingId: string, trx?: Tx): Promise<GatewayBinding | undefined>;
  /**
   * True when the website has no site key, or `presented` matches its salted hash (constant-time).
   * False for an unknown website or a wrong/missing key.
   */
  checkSiteKey(websiteId: string, presented: string | undefined): Promise<boolean>;
  /**
   * Whether a signed-in user may use the binding in a preview (`/api/v1/gateway/preview/resolve` and
   * `/preview/submit`), live or not: the source knows who may see the unpublished content that holds
   * it. Without this member no binding of the source can be previewed.
   */
  mayPreview?(binding: GatewayBinding, user: UserActor): boolean | Promise<boolean>;
}

declare module '../../kernel/index.ts' {
  interface PluginServices {
    gatewayRoutes: GatewayRoutes;
    outboundFetch: OutboundFetch;
  }
  interface PluginContributions {
    gatewayBindingSources: GatewayBindingSource;
  }
}
