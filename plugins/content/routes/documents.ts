import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import type { ContentServices } from '../services/index.ts';
import { toPageDto } from '../services/pages.ts';
import { PageAnswer } from './answers.ts';
import { IdParams, ListQuery, Name, Tree } from './schemas.ts';

/**
 * Legacy `/documents`: pages under their older name (list, get, update content). A content change
 * is a page save like any other: version snapshot, bindings, announcements.
 */
export function documentRoutes(app: App, s: ContentServices): void {
  const tags = ['documents'];
  app.get(
    '/documents',
    {
      config: { permission: 'objects:read' },
      schema: { tags, querystring: Type.Object(ListQuery), response: { 200: Type.Array(PageAnswer) } },
    },
    async (request) => (await s.pages.list(request.query)).map(toPageDto),
  );
  app.get(
    '/documents/:id',
    { config: { permission: 'objects:read' }, schema: { tags, params: IdParams, response: { 200: PageAnswer } } },
    async (request) => toPageDto(await s.pages.get(request.params.id)),
  );
  app.patch(
    '/documents/:id',
    {
      config: { permission: 'pages:edit' },
      schema: {
        tags,
        params: IdParams,
        body: Type.Object(
          { content: Type.Optional(Tree), title: Type.Optional(Name) },
          { additionalProperties: false },
        ),
        response: { 200: PageAnswer },
      },
    },
    async (request) => toPageDto(await s.pages.update(request.actor, request.params.id, request.body)),
  );
}
