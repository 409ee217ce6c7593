import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError, isHttpError, tooManyRequests, type App } from '../../../kernel/index.ts';
import type { ClientApiServices } from '../services/index.ts';
import { AutomationAnswer, ClientNotFoundAnswer, RelayedAnswer } from './answers.ts';
import { clientOf, ClientNotFound, orNotFound } from './client-scope.ts';

const tags = ['client'];
const AUTOMATION_BODY_LIMIT = 1024 * 1024;
// Ours: passthrough bodies are JSON for an upstream API, capped like automation bodies.
const PASSTHROUGH_BODY_LIMIT = 1024 * 1024;
const OUTCOME = /^[A-Za-z0-9_-]{1,32}$/;
// Upstream answer headers a client may see; everything else (cookies, hop-by-hop, server details) stays.
const PASSED_ANSWER_HEADERS = ['content-type', 'content-language', 'cache-control', 'etag', 'last-modified', 'expires'];
// On every relayed answer (ours): no content sniffing, and a document opened from it runs no script
// and gets an origin of its own, whatever the upstream sent (HTML, SVG, XML) under the gateway's origin.
const RELAYED_ANSWER_HEADERS = { 'x-content-type-options': 'nosniff', 'content-security-policy': 'sandbox' };
// Request headers passed on to the upstream: never the client's credentials, cookies or addresses.
const PASSED_REQUEST_HEADERS = ['accept', 'accept-language', 'content-type', 'if-none-match', 'if-modified-since'];

const EndpointParams = Type.Object({
  endpoint: Type.String({ minLength: 1, maxLength: 64 }),
  '*': Type.String({ maxLength: 2000 }),
});
// Free-form: the upstream's own parameters pass through (a repeated name arrives as a list).
const Query = Type.Object(
  {},
  {
    additionalProperties: Type.Union([
      Type.String({ maxLength: 4000 }),
      Type.Array(Type.String({ maxLength: 4000 }), { maxItems: 50 }),
    ]),
    maxProperties: 50,
  },
);
// A JSON object: what an automation engine takes as its input document.
const AutomationBody = Type.Object({}, { additionalProperties: true, maxProperties: 1000 });

type GatewayRoutes = NonNullable<ClientApiServices['gatewayRoutes']>;

function passedHeaders(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of PASSED_REQUEST_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

/** The answer's body as JSON when it is JSON, else as text. */
function decoded(body: Buffer, contentType: string | undefined): unknown {
  const text = body.toString('utf8');
  if (contentType?.includes('json')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/** A plain key of 1-32 letters, digits, `_` or `-`: the whole answer, or its `outcome` member. */
function outcomeOf(response: unknown): string | undefined {
  if (typeof response === 'string' && OUTCOME.test(response.trim())) return response.trim();
  if (response && typeof response === 'object' && !Array.isArray(response)) {
    const value = (response as { outcome?: unknown }).outcome;
    if (typeof value === 'string' && OUTCOME.test(value)) return value;
  }
  return undefined;
}

/** The gatewayRoutes route for this call, or ClientNotFound when it does not exist or is out of scope. */
async function routeFor(
  gatewayRoutes: GatewayRoutes | undefined,
  request: FastifyRequest,
  method: string,
  kind: 'automation:run' | 'gateway:call',
) {
  const scopes = clientOf(request).scopes;
  const params = request.params as { endpoint: string; '*': string };
  // No scope of this kind at all: nothing to look up.
  if (!gatewayRoutes || !scopes.hasKind(kind)) throw new ClientNotFound();
  const match = await gatewayRoutes.matchRoute(params.endpoint, method, `/${params['*']}`);
  if (
    !match ||
    !scopes.mayRoute(kind, { id: match.route.endpointId, name: match.route.endpointName }, match.route.routeId)
  )
    throw new ClientNotFound();
  return match;
}

/**
 * A route hook that takes one of the client's in-flight slots for the whole answer, a streamed one
 * until its last byte or until the client goes. It runs after authentication and the rate limit
 * (onRequest) and before the body is read (preParsing): beyond `CLIENT_MAX_IN_FLIGHT` calls at once
 * the client gets 429 `CLIENT_CONCURRENCY_LIMITED` with `Retry-After`, its body unread.
 */
function inFlightSlot(services: ClientApiServices) {
  const limit = services.maxInFlight;
  return <P>(
    request: FastifyRequest,
    reply: FastifyReply,
    payload: P,
    done: (err: Error | null, payload?: P) => void,
  ) => {
    const client = request.apiClient?.client;
    if (!client) return done(null, payload); // refused credential: answered by the scope's preHandler
    const release = services.inFlight.acquire(client.id, limit);
    if (!release)
      return done(
        tooManyRequests(
          `This client has ${limit} gateway calls in flight; try again when one is over`,
          1,
          'CLIENT_CONCURRENCY_LIMITED',
        ),
      );
    reply.raw.once('close', release);
    done(null, payload);
  };
}

/** POST /client/v1/automations/:endpoint/* and ALL /client/v1/gateway/:endpoint/*. */
export async function clientGatewayRoutes(app: App, services: ClientApiServices): Promise<void> {
  const config = { public: true, rateLimit: services.rateLimiter.rule };
  const gatewayRoutes = services.gatewayRoutes;
  const preParsing = inFlightSlot(services);

  app.post(
    '/client/v1/automations/:endpoint/*',
    {
      config,
      preParsing,
      bodyLimit: AUTOMATION_BODY_LIMIT,
      schema: {
        tags,
        params: EndpointParams,
        querystring: Query,
        body: AutomationBody,
        response: { 200: AutomationAnswer, 404: ClientNotFoundAnswer },
      },
    },
    async (request, reply) =>
      orNotFound(reply, async () => {
        const { route, params } = await routeFor(gatewayRoutes, request as FastifyRequest, 'POST', 'automation:run');
        let answer: Awaited<ReturnType<NonNullable<typeof gatewayRoutes>['callRoute']>>;
        try {
          answer = await gatewayRoutes!.callRoute(route.endpointId, route.routeId, {
            params,
            query: request.query,
            headers: { 'content-type': 'application/json', accept: 'application/json' },
            body: request.body,
          });
        } catch (err) {
          // Not found, and the endpoint's own bounds (429 with Retry-After), are answered as they are.
          if (isHttpError(err) && (err.statusCode === 404 || err.statusCode === 429)) throw err;
          throw engineError(isHttpError(err) ? err.message : 'The automation engine did not answer');
        }
        if (answer.status >= 500 || answer.truncated)
          throw engineError(
            answer.truncated
              ? 'The automation answer was too large'
              : `The automation engine answered ${answer.status}`,
          );
        const response = decoded(answer.body, answer.headers['content-type']);
        const outcome = outcomeOf(response);
        return { ok: answer.status < 400, ...(outcome ? { outcome } : {}), response };
      }),
  );

  app.route({
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: '/client/v1/gateway/:endpoint/*',
    config,
    preParsing,
    bodyLimit: PASSTHROUGH_BODY_LIMIT,
    schema: {
      tags,
      params: EndpointParams,
      querystring: Query,
      response: { '2xx': RelayedAnswer, 404: ClientNotFoundAnswer },
    },
    handler: async (request, reply) =>
      orNotFound(reply, async () => {
        const { route, params } = await routeFor(
          gatewayRoutes,
          request as FastifyRequest,
          request.method,
          'gateway:call',
        );
        // Streamed: the answer's bytes go to the client as they arrive (memory holds no whole answer).
        const answer = await gatewayRoutes!.streamRoute(route.endpointId, route.routeId, {
          params,
          query: request.query,
          headers: passedHeaders(request),
          body: request.body === undefined || request.body === null ? undefined : request.body,
        });
        if (answer.status > 599) {
          if (!Buffer.isBuffer(answer.body)) answer.body.destroy();
          throw new HttpError(502, 'UPSTREAM_FAILED', `The upstream answered status ${answer.status}`);
        }
        for (const name of PASSED_ANSWER_HEADERS)
          if (answer.headers[name] !== undefined) reply.header(name, answer.headers[name]);
        if (answer.length !== undefined && !Buffer.isBuffer(answer.body)) reply.header('content-length', answer.length);
        return reply.code(answer.status).headers(RELAYED_ANSWER_HEADERS).send(answer.body);
      }),
  });
}

function engineError(message: string): HttpError {
  return new HttpError(502, 'AUTOMATION_ENGINE_ERROR', message);
}
