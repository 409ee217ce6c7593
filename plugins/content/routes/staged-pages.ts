import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import type { ContentServices } from '../services/index.ts';
import { toStagedDto } from '../services/staged-pages.ts';
import { Deleted, PromotedAllAnswer, PromotedAnswer, StagedPageAnswer } from './answers.ts';
import { Id, IdParams, ListQuery } from './schemas.ts';

/** `/cms-one/pages/staged`: list, one, promote one or all, discard. */
export function stagedPageRoutes(app: App, s: ContentServices): void {
  const tags = ['pages'];
  const read = { permission: 'objects:read' };
  app.get(
    '/cms-one/pages/staged',
    {
      config: read,
      schema: {
        tags,
        querystring: Type.Object({ websiteId: Type.Optional(Id), ...ListQuery }),
        response: { 200: Type.Array(StagedPageAnswer) },
      },
    },
    async (request) =>
      (await s.staged.list(request.query.websiteId, request.query.limit, request.query.offset)).map((r) =>
        toStagedDto(r, false),
      ),
  );
  app.get(
    '/cms-one/pages/staged/:id',
    { config: read, schema: { tags, params: IdParams, response: { 200: StagedPageAnswer } } },
    async (request) => toStagedDto(await s.staged.get(request.params.id)),
  );
  app.post(
    '/cms-one/pages/staged/promote',
    {
      config: { permission: 'pages:edit' },
      schema: {
        tags,
        querystring: Type.Object({ websiteId: Type.Optional(Id) }),
        response: { 200: PromotedAllAnswer },
      },
    },
    async (request) => s.staged.promoteAll(request.actor, request.query.websiteId),
  );
  app.post(
    '/cms-one/pages/staged/:id/promote',
    { config: { permission: 'pages:edit' }, schema: { tags, params: IdParams, response: { 200: PromotedAnswer } } },
    async (request) => s.staged.promote(request.actor, request.params.id),
  );
  app.delete(
    '/cms-one/pages/staged/:id',
    { config: { permission: 'pages:delete' }, schema: { tags, params: IdParams, response: Deleted } },
    async (request, reply) => {
      await s.staged.discard(request.params.id);
      return reply.code(204).send();
    },
  );
}
