import type { FastifyReply, FastifyRequest } from 'fastify';
import { type App, HttpError, nonJsonAnswer } from '../../kernel/index.ts';
import { IMMUTABLE, INDEX_HEADERS, isDashboardRoute } from './dashboard-routes.ts';
import type { DashboardFiles, StaticFile } from './static-files.ts';

/** Unhashed files of `assets/` (a favicon) and the not-built page. */
const NEVER_CACHED = 'no-store';

const NOT_BUILT_PAGE =
  '<!doctype html><html lang="en"><meta charset="utf-8"><title>Dashboard not built</title>' +
  '<p>The admin dashboard has not been built. Run <code>npm run build:admin</code> (npm ci does it) and reload.</p></html>';

/** Request headers a website preview passes on to the public page route (no cookies: it is public). */
const PREVIEW_HEADERS = ['accept', 'accept-language', 'if-none-match', 'if-modified-since', 'user-agent', 'host'];
/** Answer headers of the page route that do not describe the relayed body. */
const HOP_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);

function send(request: FastifyRequest, reply: FastifyReply, file: StaticFile, cacheControl: string) {
  reply.header('content-type', file.type).header('cache-control', cacheControl).header('vary', 'accept-encoding');
  const accepted = String(request.headers['accept-encoding'] ?? '');
  // Brotli when the browser takes it (every current one does): some 15 % smaller than gzip.
  if (file.brotli && /\bbr\b/.test(accepted)) return reply.header('content-encoding', 'br').send(file.brotli);
  const acceptsGzip = /\bgzip\b/.test(accepted);
  if (file.gzipped && acceptsGzip) return reply.header('content-encoding', 'gzip').send(file.gzipped);
  return reply.send(file.body);
}

async function sendIndex(request: FastifyRequest, reply: FastifyReply, files: DashboardFiles) {
  const index = await files.index();
  reply.headers(INDEX_HEADERS);
  if (!index) return reply.code(503).type('text/html; charset=utf-8').send(NOT_BUILT_PAGE);
  return send(request, reply, index, INDEX_HEADERS['cache-control']);
}

/**
 * The edge table's `/` row in one process: a path whose first segment is a website's root path
 * (`GET /site-root` answers 204) is that website's page from `/public/page/<path>`; the dashboard's
 * own routes get its `index.html`; anything else is the kernel's usual 404.
 */
async function websitePreview(app: App, request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  const check = await app.inject({
    method: 'GET',
    url: '/site-root',
    headers: { 'x-original-uri': request.url },
    remoteAddress: request.ip,
  });
  if (check.statusCode !== 204) return false;
  const headers: Record<string, string> = {};
  for (const name of PREVIEW_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const page = await app.inject({
    method: request.method === 'HEAD' ? 'HEAD' : 'GET',
    url: `/public/page${request.url}`,
    headers,
    remoteAddress: request.ip,
  });
  for (const [name, value] of Object.entries(page.headers)) {
    if (!HOP_HEADERS.has(name) && value !== undefined) reply.header(name, value);
  }
  await reply.code(page.statusCode).send(page.rawPayload);
  return true;
}

/** `/assets/*` (the build's hashed files), the dashboard's own routes, and website previews at `/`. */
export async function dashboardRoutes(app: App, files: DashboardFiles): Promise<void> {
  // Static files are not API operations: hidden from /openapi.json.
  const config = { public: true } as const;
  const notBuilt = nonJsonAnswer('text/html', 'The dashboard is not built');
  const index = nonJsonAnswer('text/html', "The dashboard's index.html");
  const asset = { config, schema: { hide: true, response: { 200: nonJsonAnswer('*/*', 'A file of the build') } } };
  const root = { config, schema: { hide: true, response: { 200: index, 503: notBuilt } } };
  const other = {
    config,
    schema: {
      hide: true,
      response: {
        '2xx': nonJsonAnswer('*/*', "A website's page (as /public/page answers it) or the dashboard"),
        503: notBuilt,
      },
    },
  };

  app.get<{ Params: { '*': string } }>('/assets/*', asset, async (request, reply) => {
    const file = await files.asset(request.params['*']);
    if (!file) throw new HttpError(404, 'NOT_FOUND', 'No such file');
    reply.header('x-content-type-options', 'nosniff');
    return send(request, reply, file, file.immutable ? IMMUTABLE : NEVER_CACHED);
  });

  app.get('/', root, (request, reply) => sendIndex(request, reply, files));

  // Every other GET that no route of any plugin answers: a website page, a dashboard route, or 404.
  app.get('/*', other, async (request, reply) => {
    const pathname = request.url.split('?')[0];
    if (await websitePreview(app, request, reply)) return reply;
    if (isDashboardRoute(pathname)) return sendIndex(request, reply, files);
    throw new HttpError(404, 'ROUTE_NOT_FOUND', `Route ${request.method} ${pathname} not found`);
  });
}
