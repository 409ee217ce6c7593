import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import type { ContentServices } from '../services/index.ts';
import { KIT_MAX_TEMPLATES, toKitDto, toTemplateDto } from '../services/templates.ts';
import { KitAnswer, TemplateAnswer } from './answers.ts';
import { Id, IdParams, ListQuery, Name, Tree } from './schemas.ts';

// Its shape is checked by the service (the 400 names path whatever else is wrong).
const TemplatePath = Type.String({ minLength: 1, maxLength: 500 });

/** `/cms-one/templates` (whole-page templates, unique path) and `/cms-one/kits`. */
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
        params: IdParams,
        response: { 200: TemplateAnswer },
      },
    },
    async (request) => toTemplateDto(await s.templates.get(request.params.id)),
  );
  app.patch(
    '/cms-one/templates/:id',
    {
      config: edit,
      schema: {
        tags,
        params: IdParams,
        body: Type.Object(
          { path: Type.Optional(TemplatePath), name: Type.Optional(Name), content: Type.Optional(Tree) },
          { additionalProperties: false },
        ),
        response: { 200: TemplateAnswer },
      },
    },
    async (request) => toTemplateDto(await s.templates.update(request.params.id, request.body)),
  );
  app.delete('/cms-one/templates/:id', { config: del, schema: { tags, params: IdParams } }, async (request, reply) => {
    await s.templates.remove(request.params.id);
    return reply.code(204).send();
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
    { config: read, schema: { tags, summary: 'One kit', params: IdParams, response: { 200: KitAnswer } } },
    async (request) => toKitDto(await s.templates.getKit(request.params.id)),
  );
  app.delete('/cms-one/kits/:id', { config: del, schema: { tags, params: IdParams } }, async (request, reply) => {
    await s.templates.removeKit(request.params.id);
    return reply.code(204).send();
  });
  app.post(
    '/cms-one/kits/:id/templates',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Append a template to a kit',
        params: IdParams,
        body: Type.Object({ templateId: Id }, { additionalProperties: false }),
        response: { 200: KitAnswer },
      },
    },
    async (request) => toKitDto(await s.templates.appendTemplate(request.params.id, request.body.templateId)),
  );
}
