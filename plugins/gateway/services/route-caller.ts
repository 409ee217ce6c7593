import { HttpError, badRequest, isHttpError, type SecretBox } from '../../../kernel/index.ts';
import type { Endpoint, Route } from '../model.ts';
import { finished } from 'node:stream/promises';
import { HOP_BY_HOP, type OutboundHttp, type OutboundRequest } from '../outbound/outbound-http.ts';
import type { GatewayAnswer, GatewayCallInput, GatewayStreamedAnswer } from '../ports.ts';
import type { EndpointLimiters } from './endpoint-limiters.ts';
import type { OAuth2Tokens } from './oauth2-tokens.ts';
import { fillTemplate } from './path-template.ts';

// What a caller presents to us is never handed on: its session, API key, site key, or where it came from.
const CLIENT_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-cms-key',
  'x-cms-site-key',
  'forwarded',
  'x-real-ip',
  'x-request-id',
]);
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;
const MAX_HEADER_VALUE = 8192;

/** Extra headers a caller may set: no client credentials, no hop-by-hop or forwarding headers. */
export function upstreamHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if (CLIENT_HEADERS.has(lower) || HOP_BY_HOP.has(lower) || lower.startsWith('x-forwarded-')) continue;
    if (!HEADER_NAME.test(name)) throw badRequest(`Header name "${name.slice(0, 100)}" is not allowed`, 'headers');
    if (typeof value !== 'string' || value.length > MAX_HEADER_VALUE || /[\r\n\0]/.test(value))
      throw badRequest(`Header "${name}" has a value that cannot be sent`, `headers.${name}`);
    out[lower] = value;
  }
  return out;
}

/** Calls one route of one endpoint: template, query, credentials, rate limit, timeout, outbound policy. */
export class RouteCaller {
  constructor(
    private readonly deps: {
      outbound: OutboundHttp;
      secretBox: SecretBox;
      tokens: OAuth2Tokens;
      limiters: EndpointLimiters;
    },
  ) {}

  async call(endpoint: Endpoint, route: Route, input: GatewayCallInput = {}): Promise<GatewayAnswer> {
    const { url, request } = this.prepare(endpoint, route, input);
    return this.deps.limiters.run(endpoint, async () => {
      await this.addCredentials(endpoint, request.headers, url);
      return this.afterAnswer(endpoint, await this.deps.outbound.request(url, request));
    });
  }

  /** Like `call`, the body streamed; the endpoint's slots stay taken until the body is over. */
  async stream(endpoint: Endpoint, route: Route, input: GatewayCallInput = {}): Promise<GatewayStreamedAnswer> {
    const { url, request } = this.prepare(endpoint, route, input);
    return this.deps.limiters.run(
      endpoint,
      async () => {
        await this.addCredentials(endpoint, request.headers, url);
        return this.afterAnswer(endpoint, await this.deps.outbound.stream(url, request));
      },
      (answer) => (Buffer.isBuffer(answer.body) ? Promise.resolve() : finished(answer.body)),
    );
  }

  private afterAnswer<A extends { status: number }>(endpoint: Endpoint, answer: A): A {
    if (answer.status === 401 && endpoint.authType === 'oauth2ClientCredentials')
      this.deps.tokens.invalidate(endpoint.id);
    return answer;
  }

  /** The URL and request of a call, before credentials: template, query, headers, body, timeout. */
  private prepare(endpoint: Endpoint, route: Route, input: GatewayCallInput) {
    const url = new URL(endpoint.baseUrl.replace(/\/+$/, '') + fillTemplate(route.path, input.params));
    for (const [name, value] of Object.entries(input.query ?? {})) {
      for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(v));
    }
    const headers: Record<string, string> = {
      ...lowerKeys(endpoint.defaultHeaders),
      ...upstreamHeaders(input.headers),
    };
    let body: string | Buffer | undefined;
    if (input.body !== undefined && input.body !== null && (route.method === 'GET' || route.method === 'HEAD')) {
      throw badRequest(`A ${route.method} route takes no request body`, 'body');
    }
    if (input.body !== undefined && input.body !== null) {
      if (typeof input.body === 'string' || Buffer.isBuffer(input.body)) body = input.body;
      else {
        body = JSON.stringify(input.body);
        headers['content-type'] ??= 'application/json';
      }
    }
    const timeoutMs = Math.min(input.timeoutMs ?? endpoint.timeoutMs, endpoint.timeoutMs);
    return {
      url,
      request: { method: route.method, headers, body, timeoutMs, maxBytes: input.maxBytes } satisfies OutboundRequest,
    };
  }

  private async addCredentials(endpoint: Endpoint, headers: Record<string, string>, url: URL): Promise<void> {
    const secret = () => unseal(this.deps.secretBox, endpoint);
    const cfg = endpoint.authConfig;
    switch (endpoint.authType) {
      case 'none':
        return;
      case 'apiKeyHeader':
        headers[cfg.headerName!.toLowerCase()] = secret();
        return;
      case 'apiKeyQuery':
        url.searchParams.set(cfg.paramName!, secret());
        return;
      case 'bearer':
        headers.authorization = `Bearer ${secret()}`;
        return;
      case 'basic':
        headers.authorization = `Basic ${Buffer.from(`${cfg.username ?? ''}:${secret()}`).toString('base64')}`;
        return;
      case 'oauth2ClientCredentials':
        headers.authorization = `Bearer ${await this.deps.tokens.token(endpoint)}`;
        return;
    }
  }
}

/**
 * The endpoint's secret in clear, for this one call. A secret sealed with a key this process does not
 * have (lost or rotated GATEWAY_SECRETS_ENCRYPTION_KEY) is a 503 naming the endpoint, never a 500.
 */
export function unseal(secretBox: SecretBox, endpoint: Endpoint): string {
  if (!endpoint.sealedSecret) return '';
  try {
    return secretBox.decrypt(endpoint.sealedSecret);
  } catch (err) {
    if (isHttpError(err)) throw err;
    throw new HttpError(
      503,
      'CREDENTIALS_UNREADABLE',
      `The credentials of endpoint ${endpoint.name} cannot be unsealed (was the encryption key changed?); set them again`,
    );
  }
}

const lowerKeys = (h: Record<string, string>) =>
  Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
