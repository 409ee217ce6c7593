import etag from '@fastify/etag';
import type { Static } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import type { SearchServices } from '../services/index.ts';
import type { SearchRequest } from '../services/search-service.ts';
import {
  EditorSearchQuery,
  PublicSearchQuery,
  ReindexQuery,
  ReindexReportSchema,
  SearchAnswerSchema,
} from './schemas.ts';

const typesOf = (type: string | undefined) => (type ? [...new Set(type.split(','))] : undefined);

/** What both search routes ask the service; `isPublic` narrows to public (true) or non-public (false) documents. */
const searchRequest = (
  { q, websiteId, locale, type, limit, offset }: Static<typeof PublicSearchQuery>,
  isPublic: boolean | undefined,
): SearchRequest => ({ q, websiteId, locale, sourceTypes: typesOf(type), limit, offset, public: isPublic });

/**
 * `GET /public/search` (public documents only, rate limited per address, ETag + Cache-Control like
 * the public data answers), `GET /cms-one/search` (every document, `objects:read`) and
 * `POST /cms-one/search/reindex` (`settings:manage`; not audited, as the spec lists).
 */
export async function searchRoutes(app: App, services: SearchServices): Promise<void> {
  await app.register(async (scope) => {
    const pub = scope as App;
    await pub.register(etag, { algorithm: 'sha1', weak: true });
    pub.addHook('onSend', async (_request, reply, payload) => {
      if (reply.statusCode === 200 || reply.statusCode === 304) reply.header('cache-control', services.cacheControl);
      else reply.removeHeader('etag');
      return payload;
    });
    pub.get(
      '/public/search',
      {
        config: { public: true, rateLimit: services.rateLimit },
        schema: {
          tags: ['public', 'search'],
          description: 'Full-text search over published, indexable documents',
          querystring: PublicSearchQuery,
          response: { 200: SearchAnswerSchema },
        },
      },
      async (request) => services.search.search(searchRequest(request.query, true), 'replica'),
    );
  });

  app.get(
    '/cms-one/search',
    {
      config: { permission: 'objects:read' },
      schema: {
        tags: ['search'],
        description: 'Search for editors: drafts and non-indexable documents too',
        querystring: EditorSearchQuery,
        response: { 200: SearchAnswerSchema },
      },
    },
    async (request) => services.search.search(searchRequest(request.query, request.query.public)),
  );

  app.post(
    '/cms-one/search/reindex',
    {
      config: { permission: 'settings:manage' },
      schema: {
        tags: ['search'],
        description: 'Rebuild the index from every source (or one: `?type=`); answers with counts',
        querystring: ReindexQuery,
        response: { 200: ReindexReportSchema },
      },
    },
    async (request) => services.reindex(request.query.type),
  );
}
