import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import type { ContentServices } from '../services/index.ts';
import { toLayoutDto } from '../services/layouts.ts';
import { entityTag } from '../services/preconditions.ts';
import { Deleted, LayoutAnswer, PageLayoutAnswer } from './answers.ts';
import { IF_MATCH_NOTE } from './pages.ts';
import { Id, IdParams, Locale, Name, Tree, IfMatchHeaders, withEntityTag } from './schemas.ts';
import { DraftQuery, VERSION_NOTE, VersionQuery, draftNote, workingCopyRoutes } from './working-copy-routes.ts';

const Slot = Type.Object(
  {
    className: Type.Optional(Type.String({ maxLength: 500, pattern: '^[A-Za-z0-9 _:/.\\[\\]-]*$' })),
    style: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);
const LayoutFields = {
  name: Name,
  regions: Type.Record(Type.String({ maxLength: 20 }), Type.Union([Type.Null(), Tree]), { maxProperties: 5 }),
  // A record's key pattern becomes `patternProperties`: without `additionalProperties: false` a slot
  // of any other name (empty, "1st") would pass unchecked.
  slots: Type.Record(Type.String({ minLength: 1, maxLength: 50, pattern: '^[A-Za-z][A-Za-z0-9_-]*$' }), Slot, {
    maxProperties: 20,
    additionalProperties: false,
  }),
  pathPatterns: Type.Array(
    Type.String({ minLength: 1, maxLength: 500, pattern: '^(\\*|/[A-Za-z0-9/._~:-]*(/\\*)?)$' }),
    { maxItems: 50 },
  ),
  locale: Type.Union([Type.Null(), Locale]),
  isDefault: Type.Boolean(),
};
const { name, ...rest } = LayoutFields;
const Params = Type.Object({ websiteId: Id, id: Id });

/** Website layout templates under `/cms-one/websites/:websiteId/templates`, and a page's resolved layout. */
export function layoutRoutes(app: App, s: ContentServices): void {
  const read = { permission: 'objects:read' };
  const edit = { permission: 'websites:edit' };
  const tags = ['layouts'];
  const base = '/cms-one/websites/:websiteId/templates';

  app.get(
    base,
    {
      config: read,
      schema: {
        tags,
        summary: "A website's layout templates",
        params: Type.Object({ websiteId: Id }),
        response: { 200: Type.Array(LayoutAnswer) },
      },
    },
    async (request) => (await s.layouts.list(request.params.websiteId)).map(toLayoutDto),
  );
  app.post(
    base,
    {
      config: edit,
      schema: {
        tags,
        params: Type.Object({ websiteId: Id }),
        body: Type.Object({ name, ...Type.Partial(Type.Object(rest)).properties }, { additionalProperties: false }),
        response: { 201: LayoutAnswer },
      },
    },
    async (request, reply) =>
      reply.code(201).send(toLayoutDto(await s.layouts.create(request.params.websiteId, request.body))),
  );
  app.get(
    `${base}/:id`,
    {
      config: read,
      schema: {
        tags,
        summary: 'One layout template',
        description: VERSION_NOTE,
        params: Params,
        querystring: VersionQuery,
        response: { 200: withEntityTag(LayoutAnswer) },
      },
    },
    async (request, reply) => {
      const { websiteId, id } = request.params;
      const row = await s.layouts.staffView(websiteId, id, request.query.version);
      reply.header('etag', entityTag(row.updated_at));
      return toLayoutDto(row);
    },
  );
  app.patch(
    `${base}/:id`,
    {
      config: edit,
      schema: {
        tags,
        summary: 'Change a layout template',
        description: `${IF_MATCH_NOTE} ${draftNote('layout template')}`,
        querystring: DraftQuery,
        headers: IfMatchHeaders,
        params: Params,
        body: Type.Partial(Type.Object(LayoutFields), { additionalProperties: false }),
        response: { 200: withEntityTag(LayoutAnswer) },
      },
    },
    async (request, reply) => {
      const { websiteId, id } = request.params;
      const ifMatch = request.headers['if-match'];
      const draft = request.query.draft === 'true';
      const row = await s.layouts.update(request.actor, websiteId, id, request.body, { ifMatch, draft });
      reply.header('etag', entityTag(row.updated_at));
      return toLayoutDto(row);
    },
  );
  app.delete(
    `${base}/:id`,
    { config: edit, schema: { tags, params: Params, response: Deleted } },
    async (request, reply) => {
      await s.layouts.remove(request.params.websiteId, request.params.id);
      return reply.code(204).send();
    },
  );

  workingCopyRoutes(app, {
    base: `${base}/:id`,
    params: Params,
    tags,
    edit: 'websites:edit',
    answer: LayoutAnswer,
    dto: toLayoutDto,
    diff: (p) => s.layouts.draftDiff(p.websiteId, p.id),
    publish: (ctx, p) => s.layouts.publishDraft(ctx, p.websiteId, p.id),
    discard: (ctx, p) => s.layouts.discardDraft(ctx, p.websiteId, p.id),
  });

  app.get(
    '/cms-one/pages/:id/layout',
    { config: read, schema: { tags: ['pages'], params: IdParams, response: { 200: PageLayoutAnswer } } },
    async (request) => {
      const page = await s.pages.get(request.params.id);
      const layout = await s.layouts.forPage(page);
      const body = layout?.slots.body ?? {};
      return {
        pageId: page.id,
        layoutId: layout?.id ?? null,
        layoutName: layout?.name ?? null,
        body: { className: body.className ?? '', style: body.style ?? '' },
      };
    },
  );
}
