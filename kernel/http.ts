import Fastify, {
  LogController,
  type FastifyContextConfig,
  type FastifyError,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import fp from 'fastify-plugin';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { ANONYMOUS } from './actor.ts';
import type { AuditContext } from './audit.ts';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import { documentPolicies } from './document-policy.ts';
import { inputChecks } from './input-checks.ts';
import { trustProxyOption } from './client-address.ts';
import {
  corsPolicy,
  crossSiteRefusal,
  foreignWriteOrigin,
  OriginPolicy,
  withholdSessionCookie,
} from './cross-origin.ts';
import { HttpError, forbidden, isDatabaseUnavailable, isHttpError, isUniqueViolation, unauthorized } from './errors.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';
import type { MountedRoutes } from './mounted-routes.ts';
import type { PermissionRegistry } from './permissions.ts';
import type { App } from './plugin.ts';
import { type RateLimitStore, routeRateLimits } from './rate-limit.ts';
import { sandboxRoutes } from './sandbox.ts';
import { pathOf, pathProblemMessage, requestPathProblem } from './request-path.ts';
import { SESSION_COOKIE, type SessionService } from './sessions.ts';
import { compileSchemasOnFirstUse, serializersOnFirstUse } from './lazy-schemas.ts';
import { errorAnswers } from './answer-schemas.ts';
import { type SchemaProblem, validationSentence } from './validation-message.ts';
import { lazyRequestLogger } from './request-logger.ts';

export const JSON_BODY_LIMIT = 25 * 1024 * 1024;
/** What a 503 for an overloaded or unreachable database tells clients to wait. */
const DATABASE_RETRY_AFTER_SECONDS = 5;
/** Longest path parameter the router accepts (schemas cap each one well below). */
const MAX_PATH_PARAMETER_LENGTH = 2048;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** The OpenAPI document is free-form JSON as far as its own answer goes. */
const OPENAPI_DOCUMENT = { type: 'object', additionalProperties: true, description: 'The OpenAPI 3 document' };

/** The documented error body of every route. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  code: string;
  message: string;
  field?: string;
  requestId: string;
}

interface HttpDeps {
  config: Config;
  /** The loaded plugins' `sandbox.blockedPaths`: blocked whole under the profile. */
  sandboxBlockedPaths: readonly string[];
  logger: Logger;
  metrics: Metrics;
  sessions: SessionService;
  permissions: PermissionRegistry;
  clock: Clock;
  mountedRoutes: MountedRoutes;
  /** Where declared rate limits count (shared by every process unless RATE_LIMIT_STORE=memory). */
  rateLimitStore: RateLimitStore;
  version: string;
}

/**
 * The Fastify instance of a process with the kernel's cross-cutting behaviour: error body, request
 * ids, access control and rate limits declared on each route (fail closed), metrics and the OpenAPI document.
 */
export async function createHttpApp(deps: HttpDeps): Promise<App> {
  const app = Fastify({
    loggerInstance: deps.logger,
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyRequestLogger,
    bodyLimit: JSON_BODY_LIMIT,
    // A `__proto__` key (or `constructor.prototype`) in a JSON body is dropped while parsing: it can
    // never reach a handler, and the rest of the body is still answered on its merits.
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
    trustProxy: trustProxyOption(deps.config.TRUST_PROXY),
    // The proxy's X-Request-Id is kept (it ends up in logs and audit rows) only when it is a short
    // token; anything else gets a fresh id.
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // Path parameters are bounded by each route's schema (which names the field), not by the router's
    // 100-character default, which answered 414 before any schema ran.
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    // Errors the router raises before a route is chosen (a bad percent-encoding, a parameter over the
    // router's cap) get the same error body as every other answer.
    frameworkErrors: (err, request, reply) => {
      const status = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
      const code = status === 414 ? 'PATH_PARAMETER_TOO_LONG' : 'INVALID_URL';
      const message =
        status === 414
          ? `A path segment is longer than ${MAX_PATH_PARAMETER_LENGTH} characters`
          : 'The URL is not validly encoded';
      sendError(new HttpError(status, code, message) as unknown as FastifyError, request, reply, deps);
    },
    // strictNumbers: Infinity and NaN ("limit=1e400") are not numbers, whatever coercion made of them.
    ajv: {
      customOptions: {
        removeAdditional: false,
        coerceTypes: 'array',
        useDefaults: true,
        allErrors: false,
        strictNumbers: true,
      },
      onCreate: compileSchemasOnFirstUse,
    },
    schemaController: { compilersFactory: { buildSerializer: serializersOnFirstUse() } },
  }).withTypeProvider() as unknown as App;

  app.addHook('onRoute', (route) => deps.mountedRoutes.add(route.url));

  app.setErrorHandler((err, request, reply) => sendError(err as FastifyError, request, reply, deps));
  app.setNotFoundHandler((request, reply) =>
    sendError(
      new HttpError(404, 'ROUTE_NOT_FOUND', `Route ${request.method} ${request.url.split('?')[0]} not found`),
      request,
      reply,
      deps,
    ),
  );

  // First of all hooks, on every route and the 404 handler: a path another hop could read differently
  // (a dot segment in any spelling, a backslash) is refused, not routed (kernel/request-path.ts).
  // Also where the route's config is read, once: Fastify's `request.routeOptions` builds a new object
  // of twelve fields at every read, and the kernel's hooks read it four times a request.
  app.decorateRequest('routeConfig', null as never);
  app.addHook('onRequest', (request, _reply, done) => {
    request.routeConfig = request.routeOptions.config;
    const problem = requestPathProblem(pathOf(request.url));
    done(problem === null ? undefined : new HttpError(400, 'INVALID_PATH', pathProblemMessage(problem), 'path'));
  });

  await app.register(cookie);
  await app.register(swagger, {
    openapi: {
      info: { title: 'Content platform API', version: deps.version },
      components: { securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE } } },
    },
    // A shared schema is a component named by its `$id` (`ErrorBody`), not `def-0`.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(errorAnswers);
  app.get(
    '/openapi.json',
    { config: { public: true }, schema: { hide: true, response: { 200: OPENAPI_DOCUMENT } } },
    async () => app.swagger(),
  );

  // Kernel infrastructure is registered through fastify-plugin: its hooks must reach every plugin's
  // encapsulated context instead of staying inside their own.
  // CORS first: its preflight route exists before the access-control hook, and answers before it.
  const origins = new OriginPolicy(deps.config);
  await app.register(corsPolicy, { policy: origins });
  await app.register(accessControl, { ...deps, origins });
  await app.register(routeRateLimits, { store: deps.rateLimitStore });
  await app.register(sandboxRoutes, { sandbox: deps.config.SANDBOX, blockedPaths: deps.sandboxBlockedPaths });
  await app.register(inputChecks);
  // Graceful shutdown: once closing starts, in-flight requests still finish, but their answers close
  // the connection (the document policies' onSend hook), so a keep-alive client cannot hold the process
  // open until its idle timeout.
  let closing = false;
  await app.register(documentPolicies, { closing: () => closing });
  app.addHook('preClose', async () => {
    closing = true;
    app.server.closeIdleConnections?.();
  });

  // Recorded by route pattern without a label object (kernel/route-metrics.ts); a synchronous callback
  // hook, as an async hook costs a promise and a microtask per request.
  app.addHook('onResponse', (request, reply, done) => {
    deps.metrics.routes.record(
      request.routeConfig?.url ?? 'unmatched',
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
  return app;
}

/**
 * The route's access in its OpenAPI operation: `security` (none for public routes, the session cookie
 * otherwise) and, for a permission, the key in the description, so generated clients and readers of
 * /openapi.json see what a call needs. A route's own `security` is kept.
 */
function documentAccess(route: { schema?: object }, config: { permission?: string; public?: boolean }): void {
  const schema = (route.schema ?? {}) as Record<string, unknown>;
  if (schema.hide === true) return;
  const needs = config.public
    ? undefined
    : config.permission
      ? `Needs the permission \`${config.permission}\`.`
      : 'Needs a session.';
  route.schema = {
    ...schema,
    security: schema.security ?? (config.public ? [] : [{ session: [] }]),
    ...(needs ? { description: schema.description ? `${schema.description}\n\n${needs}` : needs } : {}),
  };
}

/**
 * Every route declares `config.permission`, `config.session` or `config.public`; start-up fails on a
 * route that declares none. The check runs before body parsing, so an unauthenticated caller never
 * learns about validation rules.
 */
const accessControl = fp<HttpDeps & { origins: OriginPolicy }>(
  async (app, deps) => installAccessControl(app as unknown as App, deps),
  { name: 'kernel-access-control' },
);

function installAccessControl(app: App, deps: HttpDeps & { origins: OriginPolicy }): void {
  app.decorateRequest('actor', null as never);
  app.addHook('onRoute', (route) => {
    const config = (route.config ?? {}) as { permission?: string; public?: boolean; session?: boolean };
    const declared = [config.permission !== undefined, config.public === true, config.session === true].filter(
      Boolean,
    ).length;
    if (declared !== 1) {
      throw new Error(
        `route ${route.method} ${route.url} must declare exactly one of config.permission, config.session or config.public`,
      );
    }
    if (config.permission !== undefined && !deps.permissions.has(config.permission)) {
      throw new Error(`route ${route.method} ${route.url} requires unknown permission key "${config.permission}"`);
    }
    documentAccess(route, config);
  });
  // A callback hook, so public routes (and unmatched URLs) pass synchronously, without the promise and
  // microtask an async hook costs on every request; only session routes wait for the session lookup.
  app.addHook('onRequest', (request, _reply, done) => {
    request.actor = ANONYMOUS;
    const access = request.routeConfig;
    if (!access.url) return done();
    // The Origin check covers every write the cookie could authenticate, whoever checks the session: a
    // session route refuses a cross-site write; a public route gets it without the cookie, so a route
    // that reads the session itself (or a service token instead) cannot be reached around the check.
    if (request.method !== 'GET' && request.cookies[SESSION_COOKIE] !== undefined) {
      const foreign = foreignWriteOrigin(request, deps.origins);
      if (foreign !== undefined) {
        if (!access.public) return done(crossSiteRefusal(foreign));
        withholdSessionCookie(request, SESSION_COOKIE);
      }
    }
    if (access.public) return done();
    authenticate(request, access, deps).then(() => done(), done);
  });
}

async function authenticate(request: FastifyRequest, access: { permission?: string }, deps: HttpDeps): Promise<void> {
  const token = request.cookies[SESSION_COOKIE];
  const actor = token ? await deps.sessions.resolve(token) : null;
  if (!actor) throw unauthorized();
  request.actor = actor;
  if (access.permission && !deps.permissions.allows(actor, access.permission)) {
    throw forbidden(`Missing permission ${access.permission}`);
  }
}

/** The audit context of a request: its actor, client address and request id. */
export function requestContext(request: FastifyRequest): AuditContext {
  return { actor: request.actor, ip: request.ip, requestId: request.id };
}

function validationField(err: FastifyError): string | undefined {
  const first = err.validation?.[0];
  if (!first) return undefined;
  const params = first.params as { missingProperty?: string; additionalProperty?: string } | undefined;
  // JSON pointer segments escape `~` and `/`; a missing or unknown property is named after its parent.
  const segments = first.instancePath
    .split('/')
    .filter(Boolean)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const named = params?.missingProperty ?? params?.additionalProperty;
  if (named) segments.push(named);
  return segments.join('.') || undefined;
}

function classify(
  err: FastifyError & { statusCode?: number },
): { status: number; code: string; message: string; field?: string; headers?: Record<string, string> } | null {
  if (isHttpError(err))
    return { status: err.statusCode, code: err.code, message: err.message, field: err.field, headers: err.headers };
  if (err.validation) {
    const field = validationField(err);
    const first = err.validation[0] as SchemaProblem | undefined;
    const message = first ? validationSentence(first, field, err.validationContext) : err.message;
    return { status: 400, code: 'VALIDATION_FAILED', message, field };
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, code: 'INVALID_JSON', message: 'Request body is not valid JSON' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, code: 'BODY_TOO_LARGE', message: `Request body is larger than ${JSON_BODY_LIMIT} bytes` };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Unsupported Content-Type' };
  }
  // Invalid text for the database encoding (a NUL that slipped past the hook): the caller's input.
  const pgCode = (err as { code?: string }).code;
  if (pgCode === '22021' || pgCode === '22P05')
    return { status: 400, code: 'INVALID_TEXT', message: 'Input contains characters that cannot be stored' };
  if (typeof pgCode === 'string' && /^22[0-9A-Z]{3}$/.test(pgCode))
    return { status: 400, code: 'INVALID_VALUE', message: 'A value is out of range or not valid for its type' };
  if (isUniqueViolation(err as unknown))
    return { status: 409, code: 'UNIQUE_VIOLATION', message: 'A unique value is already in use' };
  if (isDatabaseUnavailable(err)) {
    return {
      status: 503,
      code: 'DATABASE_UNAVAILABLE',
      message: 'The service is overloaded or its database is unreachable; retry shortly',
      headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
    };
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return { status: err.statusCode, code: err.code ?? 'BAD_REQUEST', message: err.message };
  }
  return null;
}

function sendError(err: FastifyError, request: FastifyRequest, reply: FastifyReply, deps: HttpDeps): FastifyReply {
  const known = classify(err);
  const status = known?.status ?? 500;
  // The route's pattern, never the URL: a path or query can carry a secret (an upload ticket, a
  // preview token, a sign-in code).
  if (!known)
    request.log.error(
      { err, reqId: request.id, method: request.method, route: request.routeOptions?.url ?? null },
      'request failed',
    );
  const message = known ? known.message : deps.config.production ? 'Internal server error' : err.message;
  const body: ErrorBody = {
    statusCode: status,
    error: STATUS_CODES[status] ?? 'Error',
    code: known?.code ?? 'INTERNAL',
    message,
    requestId: request.id,
  };
  if (known?.field) body.field = known.field;
  if (known?.headers) reply.headers(known.headers);
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The matched route's `config` (with Fastify's `url` and `method`; no `url` for an unmatched path),
     * read once by the kernel's first hook: cheaper for hot hooks than `request.routeOptions.config`.
     */
    routeConfig: FastifyContextConfig & { url?: string; method?: string | string[] };
  }
}
