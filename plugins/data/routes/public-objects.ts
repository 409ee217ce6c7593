import etag from '@fastify/etag';
import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import type { DataServices } from '../services/index.ts';
import { simpleFilterValue } from '../services/query-service.ts';
import type { Page } from '../store/object-query-store.ts';
import { Ids, QueryBody } from './schemas.ts';

const RESERVED = new Set(['className', 'limit', 'offset', 'locale', 'includeTotal']);

/**
 * The public read API for published objects (no authentication). Every route is counted per client
 * address (PUBLIC_DATA_RATE_LIMIT_PER_MINUTE); drafts are never revealed: a draft answers the same
 * 404 as an unknown id. Registered in its own encapsulated context so the limit hook touches only
 * these routes.
 */
export async function publicObjectRoutes(app: App, data: DataServices): Promise<void> {
  await app.register(async (scope) => {
    const pub = scope as App;
    pub.addHook('onRequest', async (request) => data.publicRateLimit.hit(request.ip));
    // Answers carry a validator: a client or CDN that revalidates with If-None-Match gets 304 without the body.
    await pub.register(etag, { algorithm: 'sha1', weak: true });
    const cacheControl = data.publicCacheControl;
    pub.addHook('onSend', async (_request, reply, payload) => {
      if (reply.statusCode === 200 || reply.statusCode === 304) reply.header('cache-control', cacheControl);
      else reply.removeHeader('etag');
      return payload;
    });
    const config = { public: true };
    const tags = ['public'];

    pub.get(
      '/public/data-objects',
      {
        config,
        schema: {
          tags,
          description: 'Published objects of a class; other query parameters are equality filters on indexed fields (`?color=red`).',
          querystring: Type.Object(
            { className: Type.String({ minLength: 1 }), locale: Type.Optional(Type.String()), limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }), offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }), includeTotal: Type.Optional(Type.Boolean()) },
            { additionalProperties: Type.String() },
          ),
        },
      },
      async (request) => {
        const query = request.query as unknown as Record<string, string | number | boolean | undefined>;
        const cls = await data.query.classNamed(String(query.className));
        const filters = Object.entries(query)
          .filter(([name]) => !RESERVED.has(name))
          .map(([field, value]) => ({ field, op: 'eq', value: simpleFilterValue(cls, field, String(value)) }));
        const page = await data.query.run(
          {
            className: cls.name,
            filters,
            limit: Number(query.limit),
            offset: Number(query.offset),
            locale: query.locale as string | undefined,
            includeTotal: request.query.includeTotal === true,
          },
          'public',
        );
        return pageBody(data, page);
      },
    );

    pub.get('/public/data-objects/batch', { config, schema: { tags, querystring: Type.Object({ ids: Ids }) } }, async (request) => ({
      objects: (await data.reads.batch(request.query.ids, 'public')).objects,
    }));

    pub.post('/public/data-objects/query', { config, schema: { tags, body: QueryBody } }, async (request) => {
      return pageBody(data, await data.query.run(request.body, 'public'));
    });

    pub.get('/public/data-objects/:id', { config, schema: { tags, params: Type.Object({ id: Type.String() }) } }, async (request) =>
      data.reads.get(request.params.id, 'public'),
    );
  });
}

/** `{ objects, hasMore }`, plus `total` when the caller asked for it (`includeTotal`). */
async function pageBody(data: DataServices, page: Page) {
  const objects = await data.reads.toDtos(page.rows);
  return page.total === undefined ? { objects, hasMore: page.hasMore } : { objects, hasMore: page.hasMore, total: page.total };
}
