import { Type } from '@sinclair/typebox';
import { emptyAnswer, forbidden, type App } from '../../../kernel/index.ts';
import type { ContentServices } from '../services/index.ts';
import { firstSegment } from '../services/site-directory.ts';

/**
 * `GET /site-root`, asked by the proxy for `/` with `X-Original-URI`: 204 when the first segment is a
 * website's root path, 403 otherwise. Answers come from the website directory, kept 5 s and dropped
 * on website writes in this process.
 */
export function siteRootRoute(app: App, s: ContentServices): void {
  app.get(
    '/site-root',
    {
      config: { public: true },
      schema: {
        tags: ['public'],
        querystring: Type.Object({}, { additionalProperties: false }),
        headers: Type.Object({ 'x-original-uri': Type.Optional(Type.String({ maxLength: 8192 })) }),
        response: { 204: emptyAnswer('The first path segment is a website root path') },
      },
    },
    async (request, reply) => {
      const segment = firstSegment(request.headers['x-original-uri'] ?? '');
      const site = segment ? await s.directory.bySegment(segment) : undefined;
      if (!site) throw forbidden('Not a website root path', 'NOT_A_WEBSITE');
      return reply.code(204).send();
    },
  );
}
