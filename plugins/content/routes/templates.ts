import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import type { ContentServices } from '../services/index.ts';
import { entityTag } from '../services/preconditions.ts';
import { KIT_MAX_TEMPLATES, toKitDto, toTemplateDto } from '../services/templates.ts';
import { Deleted, KitAnswer, TemplateAnswer } from './answers.ts';
import { IF_MATCH_NOTE } from './pages.ts';
import { Id, IdParams, ListQuery, Name, Tree, IfMatchHeaders, withEntityTag } from './schemas.ts';
import { DraftQuery, VERSION_NOTE, VersionQuery, draftNote, workingCopyRoutes } from './working-copy-routes.ts';

// Its shape is checked by the service (the 400 names path whatever else is wrong).
const TemplatePath = Type.String({ minLength: 1, maxLength: 500 });

/**
 * `/cms-one/templates` (whole-page templates, unique path) and `/cms-one/kits`. A template's and a
 * kit's `GET` and writes answer `ETag`; writes take `If-Match` (412 `EDIT_CONFLICT`), as pages do.
 */
export function templateRoutes(app: App, s: ContentServices): void {
  const read = { permission: 'objects:read' };
  const edit = { permission: 'templates:edit' };
  const del = { permission: 'templates:delete' };
  const tags = ['templates'];
  const list = Type.Object(ListQuery);

  app.get(
    '/cms-one/templates',
    {
      config: read,
      schema: {
        tags,
        summary: 'Page templates (without their content)',
        querystring: list,
        response: { 200: Type.Array(TemplateAnswer) },
      },
    },
    async (request) => (await s.templates.list(request.query.limit, request.query.offset)).map(toTemplateDto),
  );
  app.post(
    '/cms-one/templates',
    {
      config: edit,
      schema: {
        tags,
        body: Type.Object(
          { path: TemplatePath, name: Name, content: Type.Optional(Tree) },
          { additionalProperties: false },
        ),
        response: { 201: TemplateAnswer },
      },
    },
    async (request, reply) => reply.code(201).send(toTemplateDto(await s.templates.create(request.body))),
  );
  app.get(
    '/cms-one/templates/:id',
    {
      config: read,
      schema: {
        tags,
        summary: 'One page template with its content',
        description: VERSION_NOTE,
        params: IdParams,
        querystring: VersionQuery,
        response: { 200: withEntityTag(TemplateAnswer) },
      },
    },
    async (request, reply) => {
      const row = await s.templates.staffView(request.params.id, request.query.version);
      reply.header('etag', entityTag(row.updated_at));
      return toTemplateDto(row);
    },
  );
  app.patch(
    '/cms-one/templates/:id',
    {
      config: edit,
      schema: {
        tags,
        params: IdParams,
        querystring: DraftQuery,
        description: `${IF_MATCH_NOTE} ${draftNote('template')}`,
        headers: IfMatchHeaders,
        body: Type.Object(
          { path: Type.Optional(TemplatePath), name: Type.Optional(Name), content: Type.Optional(Tree) },
          { additionalProperties: false },
        ),
        response: { 200: withEntityTag(TemplateAnswer) },
      },
    },
    async (request, reply) => {
      const ifMatch = request.headers['if-match'];
      const draft = request.query.draft === 'true';
      const row = await s.templates.update(request.actor, request.params.id, request.body, { ifMatch, draft });
      reply.header('etag', entityTag(row.updated_at));
      return toTemplateDto(row);
    },
  );
  app.delete(
    '/cms-one/templates/:id',
    { config: del, schema: { tags, params: IdParams, response: Deleted } },
    async (request, reply) => {
      await s.templates.remove(request.params.id);
      return reply.code(204).send();
    },
  );

  workingCopyRoutes(app, {
    base: '/cms-one/templates/:id',
    params: IdParams,
    tags,
    edit: 'templates:edit',
    answer: TemplateAnswer,
    dto: toTemplateDto,
    diff: (p) => s.templates.draftDiff(p.id),
    publish: (ctx, p) => s.templates.publishDraft(ctx, p.id),
    discard: (ctx, p) => s.templates.discardDraft(ctx, p.id),
  });

  app.get(
    '/cms-one/kits',
    { config: read, schema: { tags, summary: 'Kits', querystring: list, response: { 200: Type.Array(KitAnswer) } } },
    async (request) => (await s.templates.listKits(request.query.limit, request.query.offset)).map(toKitDto),
  );
  app.post(
    '/cms-one/kits',
    {
      config: edit,
      schema: {
        tags,
        body: Type.Object(
          { name: Name, templateIds: Type.Optional(Type.Array(Id, { maxItems: KIT_MAX_TEMPLATES })) },
          { additionalProperties: false },
        ),
        response: { 201: KitAnswer },
      },
    },
    async (request, reply) => reply.code(201).send(toKitDto(await s.templates.createKit(request.body))),
  );
  app.get(
    '/cms-one/kits/:id',
    {
      config: read,
      schema: { tags, summary: 'One kit', params: IdParams, response: { 200: withEntityTag(KitAnswer) } },
    },
    async (request, reply) => {
      const row = await s.templates.getKit(request.params.id);
      reply.header('etag', entityTag(row.updated_at));
      return toKitDto(row);
    },
  );
  app.patch(
    '/cms-one/kits/:id',
    {
      config: edit,
      schema: {
        tags,
        summary: "Rename a kit or replace its templates (their order; ours, beside the spec's append)",
        description: IF_MATCH_NOTE,
        headers: IfMatchHeaders,
        params: IdParams,
        body: Type.Object(
          {
            name: Type.Optional(Name),
            templateIds: Type.Optional(Type.Array(Id, { maxItems: KIT_MAX_TEMPLATES })),
          },
          { additionalProperties: false },
        ),
        response: { 200: withEntityTag(KitAnswer) },
      },
    },
    async (request, reply) => {
      const ifMatch = request.headers['if-match'];
      const row = await s.templates.updateKit(request.params.id, request.body, { ifMatch });
      reply.header('etag', entityTag(row.updated_at));
      return toKitDto(row);
    },
  );
  app.delete(
    '/cms-one/kits/:id',
    { config: del, schema: { tags, params: IdParams, response: Deleted } },
    async (request, reply) => {
      await s.templates.removeKit(request.params.id);
      return reply.code(204).send();
    },
  );
  app.post(
    '/cms-one/kits/:id/templates',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Append a template to a kit',
        description: IF_MATCH_NOTE,
        headers: IfMatchHeaders,
        params: IdParams,
        body: Type.Object({ templateId: Id }, { additionalProperties: false }),
        response: { 200: withEntityTag(KitAnswer) },
      },
    },
    async (request, reply) => {
      const ifMatch = request.headers['if-match'];
      const row = await s.templates.appendTemplate(request.params.id, request.body.templateId, { ifMatch });
      reply.header('etag', entityTag(row.updated_at));
      return toKitDto(row);
    },
  );
}
