import etag from '@fastify/etag';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { App } from '../../../kernel/index.ts';
import type { DataServices } from '../services/index.ts';
import type { CachedAnswer } from '../services/public-read-cache.ts';
import { simpleFilterValue, type QueryInput } from '../services/query-service.ts';
import { After, Ids, QueryBody } from './schemas.ts';
import { ObjectQueryPage as PublicObjectPage, ObjectView } from './views.ts';

const RESERVED = new Set(['className', 'limit', 'offset', 'locale', 'includeTotal', 'after']);
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The public read API for published objects (no authentication). Every route is counted per client
 * address (PUBLIC_DATA_RATE_LIMIT_PER_MINUTE); drafts are never revealed: a draft answers the same
 * 404 as an unknown id. Registered in its own encapsulated context so the ETag hooks touch only
 * these routes.
 */
export async function publicObjectRoutes(app: App, data: DataServices): Promise<void> {
  await app.register(async (scope) => {
    const pub = scope as App;
    // Answers carry a validator: a client or CDN that revalidates with If-None-Match gets 304 without the body.
    await pub.register(etag, { algorithm: 'sha1', weak: true });
    const cacheControl = data.publicCacheControl;
    // Answers come as JSON text with their validator (services/public-read-service.ts); @fastify/etag
    // keeps an ETag that is already set, so a cached answer is not hashed again.
    const send = (reply: FastifyReply, answer: CachedAnswer) =>
      reply.header('etag', answer.etag).type(JSON_TYPE).send(answer.body);
    pub.addHook('onSend', (_request, reply, payload, done) => {
      if (reply.statusCode === 200 || reply.statusCode === 304) reply.header('cache-control', cacheControl);
      else reply.removeHeader('etag');
      done(null, payload);
    });
    const config = { public: true, rateLimit: data.publicRateLimit };
    const tags = ['public'];

    pub.get(
      '/public/data-objects',
      {
        config,
        schema: {
          tags,
          description:
            'Published objects of a class; other query parameters are equality filters on indexed fields (`?color=red`).',
          querystring: Type.Object(
            {
              className: Type.String({ minLength: 1 }),
              locale: Type.Optional(Type.String()),
              limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
              offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
              includeTotal: Type.Optional(Type.Boolean()),
              after: Type.Optional(After),
            },
            { additionalProperties: Type.String() },
          ),
          response: { 200: PublicObjectPage },
        },
      },
      async (request, reply) => {
        const query = request.query as unknown as Record<string, string | number | boolean | undefined>;
        const cls = await data.query.classNamed(String(query.className));
        const filters = Object.entries(query)
          .filter(([name]) => !RESERVED.has(name))
          .map(([field, value]) => ({ field, op: 'eq', value: simpleFilterValue(cls, field, String(value)) }));
        const input: QueryInput = {
          className: cls.name,
          filters,
          limit: Number(query.limit),
          offset: Number(query.offset),
          locale: query.locale as string | undefined,
          includeTotal: request.query.includeTotal === true,
          after: request.query.after,
        };
        return send(reply, await data.publicReads.page(input));
      },
    );

    pub.get(
      '/public/data-objects/batch',
      {
        config,
        schema: {
          tags,
          querystring: Type.Object({ ids: Ids }),
          response: { 200: Type.Object({ objects: Type.Array(ObjectView) }) },
        },
      },
      async (request) => ({
        objects: (await data.reads.batch(request.query.ids, 'public')).objects,
      }),
    );

    pub.post(
      '/public/data-objects/query',
      { config, schema: { tags, body: QueryBody, response: { 200: PublicObjectPage } } },
      async (request, reply) => send(reply, await data.publicReads.page(request.body)),
    );

    pub.get(
      '/public/data-objects/:id',
      { config, schema: { tags, params: Type.Object({ id: Type.String() }), response: { 200: ObjectView } } },
      async (request, reply) => send(reply, await data.publicReads.byId(request.params.id)),
    );
  });
}
