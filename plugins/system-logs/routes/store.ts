import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { type App, nonJsonAnswer, safeEqual, unauthorized, unavailable } from '../../../kernel/index.ts';
import type { SystemLogs } from '../services/index.ts';
import { LOG_SOURCES } from '../services/store.ts';
import { DownloadQuery, TailAnswer, TailQuery } from './schemas.ts';

/** Bytes of one shipping call at most: the shipper sends a megabyte at a time. */
const APPEND_BODY_LIMIT = 4 * 1024 * 1024;

/** The actor of calls made with the service token. */
const LOG_SHIPPER = { type: 'system', id: null, label: 'log-shipper' } as const;

/** The bearer `DAM_SERVICE_TOKEN` (constant-time comparison), or 401. */
function serviceToken(logs: SystemLogs) {
  return async (request: FastifyRequest) => {
    const header = request.headers.authorization;
    const token = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7).trim() : '';
    if (!logs.serviceToken || !token || !safeEqual(token, logs.serviceToken))
      throw unauthorized(
        'The service token (Authorization: Bearer DAM_SERVICE_TOKEN) is required',
        'SERVICE_TOKEN_REQUIRED',
      );
    request.actor = LOG_SHIPPER;
  };
}

const storeOff = () =>
  unavailable('This process keeps no log files: set LOG_DIR on the asset-processor', 'LOG_STORE_OFF');

/**
 * Log file storage (spec "Runtime parts": the asset-processor; all-in-one too): the copies of shipped
 * files, their sizes and appending to them. core-api of a split deployment answers the same two
 * routes by passing them on to the asset-processor, so the gateway ships through core-api. Only the
 * bearer `DAM_SERVICE_TOKEN` opens them. Service routes, not part of the API users call: left out of
 * /openapi.json (`hide`); test/split.test.ts covers their input.
 */
export async function segmentRoutes(app: App, logs: SystemLogs): Promise<void> {
  const tags = ['system logs'];
  // Declared public for the kernel; the token is checked here, before a body is read.
  const config = { public: true } as const;
  const token = serviceToken(logs);
  const onRequest = async (request: FastifyRequest) => {
    await token(request);
    if (!logs.segments) throw storeOff();
  };
  const Service = Type.Union(LOG_SOURCES.map((s) => Type.Literal(s)));
  const store = () => logs.segments!;

  app.get(
    '/api/v1/system/log-store/segments/:service',
    {
      config,
      onRequest,
      schema: {
        hide: true,
        tags,
        summary: 'Files of a process in the log store and their sizes (service token)',
        params: Type.Object({ service: Service }),
        response: {
          200: Type.Object({ segments: Type.Array(Type.Object({ name: Type.String(), size: Type.Integer() })) }),
        },
      },
    },
    async (request) => ({ segments: await store().segments(request.params.service) }),
  );

  await app.register(async (scope) => {
    const raw = scope as App;
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser(
      'application/octet-stream',
      { parseAs: 'buffer', bodyLimit: APPEND_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    );
    raw.put(
      '/api/v1/system/log-store/segments/:service/:name',
      {
        config,
        onRequest,
        bodyLimit: APPEND_BODY_LIMIT,
        schema: {
          hide: true,
          tags,
          summary: 'Appends whole lines to a stored log file at `offset`, its size now (service token)',
          params: Type.Object({ service: Service, name: Type.String({ minLength: 1, maxLength: 80 }) }),
          querystring: Type.Object(
            { offset: Type.Integer({ minimum: 0, maximum: 2 ** 40 }) },
            { additionalProperties: false },
          ),
          response: { 200: Type.Object({ size: Type.Integer() }) },
        },
      },
      async (request) => {
        const body = request.body;
        const bytes = Buffer.isBuffer(body) ? body : Buffer.alloc(0);
        return {
          size: await store().append(request.params.service, request.params.name, request.query.offset, bytes),
        };
      },
    );
  });
}

/**
 * What the store holds, read back by core-api of a split deployment: the tail and the download of
 * the shipped copies and of the asset-processor's own files (token only, not in /openapi.json).
 */
export async function storeReadRoutes(app: App, logs: SystemLogs): Promise<void> {
  const tags = ['system logs'];
  const config = { public: true } as const;
  const token = serviceToken(logs);
  const onRequest = async (request: FastifyRequest) => {
    await token(request);
    if (!logs.store) throw storeOff();
  };
  app.get(
    '/api/v1/system/log-store/tail',
    {
      config,
      onRequest,
      schema: {
        hide: true,
        tags,
        summary: 'The tail of every file the store holds (service token)',
        querystring: TailQuery,
        response: { 200: TailAnswer },
      },
    },
    async (request) => ({ lines: await logs.localTail(request.query) }),
  );
  app.get(
    '/api/v1/system/log-store/download',
    {
      config,
      onRequest,
      schema: {
        hide: true,
        tags,
        summary: 'Every file the store holds as one stream of lines (service token)',
        querystring: DownloadQuery,
        response: { 200: nonJsonAnswer('application/x-ndjson', 'Log lines, one JSON object a line') },
      },
    },
    async (request, reply) =>
      reply
        .header('content-type', 'application/x-ndjson; charset=utf-8')
        .send(logs.localDownload(request.query.service)),
  );
}
