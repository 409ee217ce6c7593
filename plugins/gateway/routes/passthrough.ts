import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type App,
  badRequest,
  MAX_DECODING_ROUNDS,
  pathOf,
  pathProblemMessage,
  requestPathProblem,
} from '../../../kernel/index.ts';
import { HOP_BY_HOP, flattenHeaders, type InternalForwarder } from '../outbound/outbound-http.ts';
import { UpstreamAnswers } from './schemas.ts';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const BODY_LIMIT = 100 * 1024 * 1024;

interface Passthrough {
  /** Path prefix on the gateway, e.g. `/api/internal`. */
  from: string;
  /** Base URL the rest of the path is appended to. */
  to: string;
  /** `session`: a signed-in user (the upstream checks its own permissions with the same cookie). */
  access: 'session' | 'public';
  /** Path kept in front of the rest (e.g. `/public` stays `/public`). */
  keepPrefix: boolean;
}

/**
 * The spec's passthroughs: `/api/internal/*` (session) → core-api, `/dam/*` (session) →
 * asset-processor, `/public/*` → core-api. Mounted only where the base URLs are configured (the split
 * deployment); in the all-in-one process the same process serves those paths itself.
 */
export async function passthroughRoutes(
  app: App,
  forwarder: InternalForwarder,
  urls: { coreApi?: string; assetProcessor?: string },
): Promise<void> {
  const list: Passthrough[] = [];
  if (urls.coreApi) {
    list.push({ from: '/api/internal', to: urls.coreApi, access: 'session', keepPrefix: false });
    list.push({ from: '/public', to: urls.coreApi, access: 'public', keepPrefix: true });
  }
  if (urls.assetProcessor) list.push({ from: '/dam', to: urls.assetProcessor, access: 'session', keepPrefix: false });
  if (!list.length) return;

  await app.register(async (scope) => {
    // Bodies pass as bytes, whatever their type: the upstream parses and validates them.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_req, body, done) =>
      done(null, body),
    );
    for (const p of list) {
      scope.route({
        method: [...METHODS],
        url: `${p.from}/*`,
        bodyLimit: BODY_LIMIT,
        config: p.access === 'session' ? { session: true } : { public: true },
        schema: { hide: true, response: UpstreamAnswers },
        handler: (request, reply) => forward(forwarder, p, request, reply),
      });
    }
  });
}

/**
 * The upstream URL of a passthrough request: the base URL's path, the kept prefix, then the rest of
 * the request target exactly as sent. The kernel already refused a path with a dot segment in any
 * spelling one decoding reveals (kernel/request-path.ts); this looks through up to four decodings
 * (`%252e%252e`) and then checks the URL as parsed, so no reading of the path, ours, the URL parser's
 * or the next service's, leaves the base: 400 INVALID_PATH otherwise.
 */
function passthroughTarget(p: Passthrough, requestUrl: string): URL {
  const rest = requestUrl.slice(p.from.length);
  // Another service reads it next: look through every re-encoding, not only the one decoding the
  // kernel checked for this process.
  const problem = rest.startsWith('/') ? requestPathProblem(pathOf(rest), MAX_DECODING_ROUNDS) : 'DOT_SEGMENT';
  if (problem !== null) throw badRequest(pathProblemMessage(problem), 'path', 'INVALID_PATH');
  const base = new URL(p.to);
  const under = base.pathname.replace(/\/+$/, '') + (p.keepPrefix ? p.from : '');
  const target = new URL(base.origin + under + rest);
  if (!target.pathname.startsWith(`${under}/`)) throw badRequest(`The path leaves ${p.from}/`, 'path', 'INVALID_PATH');
  return target;
}

async function forward(forwarder: InternalForwarder, p: Passthrough, request: FastifyRequest, reply: FastifyReply) {
  const target = passthroughTarget(p, request.url);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    // Public passthrough: no credential of the visitor travels.
    if (p.access === 'public' && (name === 'cookie' || name === 'authorization')) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  headers['x-forwarded-for'] = [request.headers['x-forwarded-for'], request.ip].filter(Boolean).join(', ');
  const answer = await forwarder.forward(target, {
    method: request.method,
    headers,
    body: Buffer.isBuffer(request.body) ? request.body : undefined,
    timeoutMs: 60_000,
  });
  reply.code(answer.statusCode).headers(flattenHeaders({ ...answer.headers, 'set-cookie': undefined }));
  // Several cookies stay several headers (a joined Set-Cookie would be one broken cookie).
  if (answer.headers['set-cookie'] !== undefined) reply.header('set-cookie', answer.headers['set-cookie']);
  return reply.send(answer.body);
}
