import type { FastifyReply, FastifyRequest } from 'fastify';
import { isHttpError, type App, type HttpError } from '../../../kernel/index.ts';
import type { ClientPrincipal } from '../services/authenticator.ts';
import type { ClientApiServices } from '../services/index.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated API client of a /client/v1 request (set by the scope's onRequest hook). */
    apiClient: ClientPrincipal | null;
    /** Why the credential was refused (401/403), answered once the route's input is validated. */
    apiClientRefusal: HttpError | null;
  }
}

/** Headers a browser (jwt client) may read on a cross-origin answer. */
const EXPOSED = 'Retry-After, X-Request-Id, ETag, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset';

/**
 * What every /client/v1 route shares. The routes declare `config: { public: true }`: the kernel then
 * neither reads the session cookie nor applies its cookie CSRF check, and answers CORS for any origin
 * without credentials (the spec's "open and cookie-free"). Access is this scope's job instead: the
 * client's credential, status, expiry and address. Each route also declares the per-client rate limit
 * (`config.rateLimit`, services/rate-limiter.ts), which the kernel applies after this scope's hook.
 *
 * The credential is checked when the request arrives, so a known client is counted (and refused with
 * 429) before its body is read, and every answer to it carries the RateLimit-* headers, errors too.
 * A refused credential is answered after the route's own input validation (preHandler), like any
 * public route: the rules of a documented API are no secret, and each route keeps its own 4xx.
 */
export function installClientScope(app: App, services: ClientApiServices): void {
  app.decorateRequest('apiClient', null);
  app.decorateRequest('apiClientRefusal', null);
  // Callback-style hooks: a known key and in-memory counters answer without a promise round trip.
  // The steps are defined once here, not per request (a closure per request costs more than the work).
  type Done = (err?: Error) => void;
  const refuse = (request: FastifyRequest, err: unknown, done: Done) => {
    if (!isHttpError(err)) return done(err as Error);
    request.apiClientRefusal = err;
    done();
  };
  const admit = (request: FastifyRequest, principal: ClientPrincipal, done: Done) => {
    request.apiClient = principal;
    done();
  };
  app.addHook('onRequest', (request, _reply, done) => {
    let found: ClientPrincipal | Promise<ClientPrincipal>;
    try {
      found = services.authenticator.authenticate(request);
    } catch (err) {
      return refuse(request, err, done);
    }
    if (found instanceof Promise)
      found.then(
        (p) => admit(request, p, done),
        (err) => refuse(request, err, done),
      );
    else admit(request, found, done);
  });
  app.addHook('preHandler', (request, _reply, done) => done(request.apiClientRefusal ?? undefined));
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (reply.hasHeader('access-control-allow-origin')) reply.header('access-control-expose-headers', EXPOSED);
    done(null, payload);
  });
}

/** The authenticated client (the scope's hook ran before any handler). */
export function clientOf(request: FastifyRequest): ClientPrincipal {
  return request.apiClient as ClientPrincipal;
}

/**
 * The spec's 404 on /client/v1: body text `Not found`, the same for an unknown, out-of-scope or draft
 * record, class, endpoint or route, so a client cannot tell which of them it was.
 */
export function sendNotFound(reply: FastifyReply): FastifyReply {
  return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
}

/** Marker thrown by handlers to answer {@link sendNotFound}. */
export class ClientNotFound extends Error {}

/** Runs a handler; a ClientNotFound or any 404 HttpError becomes the plain `Not found` answer. */
export async function orNotFound<T>(reply: FastifyReply, work: () => Promise<T>): Promise<T | FastifyReply> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ClientNotFound || (isHttpError(err) && err.statusCode === 404)) return sendNotFound(reply);
    throw err;
  }
}
