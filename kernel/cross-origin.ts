import type { FastifyReply, FastifyRequest } from 'fastify';
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
    const list = (s: string) =>
      s
        .split(',')
        .map((x) => x.trim().toLowerCase())
        .filter(Boolean);
    this.origins = new Set([
      new URL(config.PUBLIC_BASE_URL).origin,
      ...list(config.CORS_ALLOWED_ORIGINS).map((o) => o.replace(/\/+$/, '')),
    ]);
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
 * CSRF defence for cookie-authenticated writes, applied by the kernel to every request that carries the
 * session cookie, whichever code checks the session afterwards: a state-changing request must come from
 * the workspace's own origin or the allowlist. Answers the foreign origin of a refused write, or
 * undefined. Requests without Origin and Referer come from non-browser clients (curl, scripts), which
 * no third-party page can make carry the cookie.
 */
export function foreignWriteOrigin(request: FastifyRequest, policy: OriginPolicy): string | undefined {
  if (!STATE_CHANGING.has(request.method)) return undefined;
  const origin = browserOrigin(request);
  if (origin === undefined || policy.allows(origin, request.headers.host)) return undefined;
  return origin;
}

/** The refusal of a cross-site write on a route that authenticates by the session cookie. */
export const crossSiteRefusal = (origin: string) =>
  forbidden(`Cross-site request refused: origin ${origin} is not allowed to change data here`, 'CSRF_ORIGIN_REFUSED');

/**
 * Removes the session cookie from a cross-site write to a public route (from the parsed cookies and the
 * raw header alike), so that no handler, and nothing it forwards to, can act as the signed-in user:
 * the route answers as it answers anonymous visitors. A public route stays usable from other sites
 * (a form on a published site is posted with the cookie when both share a registrable domain).
 */
export function withholdSessionCookie(request: FastifyRequest, name: string): void {
  delete request.cookies[name];
  const raw = request.headers.cookie;
  if (typeof raw !== 'string') return;
  const kept = raw
    .split(';')
    .filter((pair) => pair.split('=', 1)[0].trim() !== name)
    .join(';')
    .trim();
  if (kept) request.headers.cookie = kept;
  else delete request.headers.cookie;
  request.sessionCookieWithheld = true;
}

/** Answer headers computed once: every request of a kind gets the same ones. */
const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';
const EXPOSED_HEADERS = 'Retry-After, X-Request-Id, ETag';
const PREFLIGHT_MAX_AGE = '600';

/** Adds a field name to the answer's Vary header, once. */
function addVary(reply: FastifyReply, field: string): void {
  const current = reply.getHeader('vary');
  if (current === undefined || current === '') {
    reply.header('vary', field);
    return;
  }
  const text = Array.isArray(current) ? current.join(', ') : String(current);
  if (
    text === '*' ||
    text
      .toLowerCase()
      .split(',')
      .some((f) => f.trim() === field.toLowerCase())
  )
    return;
  reply.header('vary', `${text}, ${field}`);
}

/**
 * CORS per the spec: credentialed CORS only for the workspace's origins and the allowlist; public routes
 * (`config.public`, e.g. /public/*, /client/v1) answer any origin without credentials. A preflight does
 * not know its route yet, so it allows the allowlist with credentials and anyone else without: the
 * actual answer's headers decide what the browser may read.
 *
 * The same answers @fastify/cors gave with a per-request delegator, written directly: that path built
 * and merged three option objects per request, a measurable share of a public read (bench:kernel).
 * Every answer still carries `Vary: Origin`, so shared caches keep answers per origin apart.
 */
export const corsPolicy = fp<{ policy: OriginPolicy }>(
  async (app, { policy }) => {
    app.decorateRequest('corsPreflightEnabled', false);
    app.addHook('onRequest', (request, reply, done) => {
      const origin = request.headers.origin;
      const preflight = request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
      const isPublic = !preflight && request.routeConfig?.public === true;
      addVary(reply, 'Origin');
      if (origin && !isPublic && policy.allows(origin, request.headers.host)) {
        reply.header('access-control-allow-origin', origin);
        reply.header('access-control-allow-credentials', 'true');
      } else if (isPublic || preflight) {
        reply.header('access-control-allow-origin', '*');
      } else {
        return done(); // a foreign origin on a session route: no CORS headers, the browser reads nothing
      }
      reply.header('access-control-expose-headers', EXPOSED_HEADERS);
      if (request.method !== 'OPTIONS') return done();
      // An OPTIONS request that is not a complete preflight (no Origin or no requested method) is refused.
      if (!origin || !preflight) {
        reply.code(400).type('text/plain').send('Invalid Preflight Request');
        return;
      }
      request.corsPreflightEnabled = true;
      reply.header('access-control-allow-methods', ALLOWED_METHODS);
      addVary(reply, 'Access-Control-Request-Headers');
      const requested = request.headers['access-control-request-headers'];
      if (requested !== undefined) reply.header('access-control-allow-headers', requested);
      reply.header('access-control-max-age', PREFLIGHT_MAX_AGE);
      reply.code(204).header('content-length', '0').send();
    });
    // Preflights to paths without an OPTIONS route of their own end here (answered by the hook above).
    app.options('*', { schema: { hide: true } }, (request, reply) => {
      if (!request.corsPreflightEnabled) return reply.callNotFound();
      return reply.send();
    });
  },
  { name: 'kernel-cors' },
);

declare module 'fastify' {
  interface FastifyRequest {
    corsPreflightEnabled: boolean;
    /**
     * Set when the kernel removed the session cookie of a cross-site write to a public route (absent
     * otherwise, so no request pays for it): a route that authenticates by the session itself may then
     * name the refusal (403 CSRF_ORIGIN_REFUSED).
     */
    sessionCookieWithheld?: true;
  }
}
