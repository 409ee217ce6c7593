import { Type } from '@sinclair/typebox';
import { requestContext, type App } from '../../../kernel/index.ts';
import type { ContentServices } from '../services/index.ts';
import { toWebsitePathDto } from '../services/menus.ts';
import { Deleted, WebsitePathAnswer } from './answers.ts';
import { Id, IdParams, ListQuery, Name } from './schemas.ts';

const Fields = {
  websiteId: Id,
  parentId: Type.Union([Type.Null(), Id]),
  label: Name,
  path: Type.Union([Type.Null(), Type.String({ minLength: 1, maxLength: 2000, pattern: '^(https?://|/|#)' })]),
  pageId: Type.Union([Type.Null(), Id]),
  position: Type.Integer({ minimum: 0, maximum: 100_000 }),
};
const { websiteId, label, ...optional } = Fields;

/** `/cms-one/website-paths`: menu entries of a website. */
export function websitePathRoutes(app: App, s: ContentServices): void {
  const read = { permission: 'objects:read' };
  const edit = { permission: 'menus:edit' };
  const tags = ['website-paths'];
  app.get(
    '/cms-one/website-paths',
    {
      config: read,
      schema: {
        tags,
        querystring: Type.Object({
          websiteId: Type.Optional(Id),
          ...ListQuery,
          limit: Type.Integer({ minimum: 1, maximum: 5000, default: 1000 }),
        }),
        summary: 'Menu entries, of one website or all',
        response: { 200: Type.Array(WebsitePathAnswer) },
      },
    },
    async (request) =>
      (await s.menus.list(request.query.websiteId, request.query.limit, request.query.offset)).map(toWebsitePathDto),
  );
  app.post(
    '/cms-one/website-paths',
    {
      config: edit,
      schema: {
        tags,
        body: Type.Object(
          { websiteId, label, ...Type.Partial(Type.Object(optional)).properties },
          { additionalProperties: false },
        ),
        response: { 201: WebsitePathAnswer },
      },
    },
    async (request, reply) =>
      reply.code(201).send(toWebsitePathDto(await s.menus.create(requestContext(request), request.body))),
  );
  app.get(
    '/cms-one/website-paths/:id',
    {
      config: read,
      schema: { tags, summary: 'One menu entry', params: IdParams, response: { 200: WebsitePathAnswer } },
    },
    async (request) => toWebsitePathDto(await s.menus.get(request.params.id)),
  );
  app.patch(
    '/cms-one/website-paths/:id',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Change a menu entry',
        params: IdParams,
        body: Type.Partial(Type.Object(Fields), { additionalProperties: false }),
        response: { 200: WebsitePathAnswer },
      },
    },
    async (request) => toWebsitePathDto(await s.menus.update(requestContext(request), request.params.id, request.body)),
  );
  app.delete(
    '/cms-one/website-paths/:id',
    { config: edit, schema: { tags, params: IdParams, response: Deleted } },
    async (request, reply) => {
      await s.menus.remove(requestContext(request), request.params.id);
      return reply.code(204).send();
    },
  );
}
