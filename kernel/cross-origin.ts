import cors from '@fastify/cors';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from './config.ts';
import { forbidden } from './errors.ts';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Which browser origins count as the workspace's own: PUBLIC_BASE_URL, the host the request was sent
 * to, CORS_ALLOWED_ORIGINS (exact origins) and CORS_ALLOWED_HOSTS (host names, `*.` for subdomains).
 * Parsed once at start.
 */
export class OriginPolicy {
  private readonly origins: Set<string>;
  private readonly hosts: string[];
  private readonly hostSuffixes: string[];

  constructor(config: Pick<Config, 'PUBLIC_BASE_URL' | 'CORS_ALLOWED_ORIGINS' | 'CORS_ALLOWED_HOSTS'>) {
    const list = (s: string) => s.split(',').map((x) => x.trim().toLowerCase()).filter(Boolean);
    this.origins = new Set([new URL(config.PUBLIC_BASE_URL).origin, ...list(config.CORS_ALLOWED_ORIGINS).map((o) => o.replace(/\/+$/, ''))]);
    const hosts = list(config.CORS_ALLOWED_HOSTS);
    this.hosts = hosts.filter((h) => !h.startsWith('*.'));
    this.hostSuffixes = hosts.filter((h) => h.startsWith('*.')).map((h) => h.slice(1));
  }

  /** True for the workspace's own origins and the allowlist; `null` origins and garbage are foreign. */
  allows(origin: string, requestHost: string | undefined): boolean {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
    if (this.origins.has(url.origin)) return true;
    if (requestHost && url.host === hostOf(url.protocol, requestHost)) return true;
    const name = url.hostname;
    return this.hosts.includes(name) || this.hostSuffixes.some((suffix) => name.endsWith(suffix));
  }
}

/** The Host header as URL.host writes it (lower case, default port dropped), or '' when malformed. */
function hostOf(protocol: string, host: string): string {
  try {
    return new URL(`${protocol}//${host}`).host;
  } catch {
    return '';
  }
}

/** The Origin a browser sent, or the origin of its Referer when it sent none; undefined for non-browser clients. */
function browserOrigin(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin;
  if (typeof origin === 'string') return origin;
  const referer = request.headers.referer;
  if (typeof referer !== 'string') return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return 'null';
  }
}

/**
 * CSRF defence for cookie-authenticated writes: a state-changing request to a route that is not public
 * must come from the workspace's own origin or the allowlist. Requests without Origin and Referer come
 * from non-browser clients (curl, scripts), which no third-party page can make carry the cookie.
 */
export function assertSameOriginWrite(request: FastifyRequest, policy: OriginPolicy): void {
  if (!STATE_CHANGING.has(request.method)) return;
  const origin = browserOrigin(request);
  if (origin === undefined) return;
  if (!policy.allows(origin, request.headers.host)) {
    throw forbidden(`Cross-site request refused: origin ${origin} is not allowed to change data here`, 'CSRF_ORIGIN_REFUSED');
  }
}

/**
 * CORS per the spec: credentialed CORS only for the workspace's origins and the allowlist; public routes
 * (`config.public`, e.g. /public/*, /client/v1) answer any origin without credentials. A preflight does
 * not know its route yet, so it allows the allowlist with credentials and anyone else without: the
 * actual answer's headers decide what the browser may read.
 */
export const corsPolicy = fp<{ policy: OriginPolicy }>(
  async (app, { policy }) => {
    await app.register(cors, {
      hook: 'onRequest',
      delegator: (request, callback) => {
        const origin = request.headers.origin;
        const preflight = request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
        const isPublic = !preflight && request.routeOptions.config?.public === true;
        const common = { methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'], maxAge: 600, exposedHeaders: ['Retry-After', 'X-Request-Id', 'ETag'] };
        if (origin && !isPublic && policy.allows(origin, request.headers.host)) {
          callback(null, { ...common, origin: true, credentials: true });
        } else if (isPublic || preflight) {
          callback(null, { ...common, origin: '*', credentials: false });
        } else {
          callback(null, { origin: false });
        }
      },
    });
  },
  { name: 'kernel-cors' },
);
