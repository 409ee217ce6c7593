import type { App } from '../../../kernel/index.ts';
import { MAIL_MANAGE } from '../permissions.ts';
import type { MailServices } from '../services/index.ts';
import { MailTemplate, NoContent, RenderedMail, TemplateList } from './answers.ts';
import { CreateTemplate, IdParams, PatchTemplate, RenderBody } from './schemas.ts';

const config = { permission: MAIL_MANAGE };
const tags = ['mail'];

/** /mail-templates: list, create, one template, render. */
export async function templateRoutes(app: App, s: MailServices): Promise<void> {
  app.get('/mail-templates', { config, schema: { tags, response: { 200: TemplateList } } }, async () => ({
    templates: await s.templates.list(),
  }));

  app.post(
    '/mail-templates',
    { config, schema: { tags, body: CreateTemplate, response: { 201: MailTemplate } } },
    async (request, reply) => {
      s.accountMail.requireForTemplate(request.actor, [request.body.key]);
      return reply.code(201).send(await s.templates.create(request.body));
    },
  );

  app.get(
    '/mail-templates/:id',
    { config, schema: { tags, params: IdParams, response: { 200: MailTemplate } } },
    async (request) => s.templates.get(request.params.id),
  );

  app.patch(
    '/mail-templates/:id',
    { config, schema: { tags, params: IdParams, body: PatchTemplate, response: { 200: MailTemplate } } },
    async (request) => {
      const current = await s.templates.get(request.params.id);
      s.accountMail.requireForTemplate(request.actor, [current.key, request.body.key]);
      return s.templates.update(request.params.id, request.body);
    },
  );

  app.delete(
    '/mail-templates/:id',
    { config, schema: { tags, params: IdParams, response: { 204: NoContent } } },
    async (request, reply) => {
      s.accountMail.requireForTemplate(request.actor, [(await s.templates.get(request.params.id)).key]);
      await s.templates.remove(request.params.id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/mail-templates/:id/render',
    { config, schema: { tags, params: IdParams, body: RenderBody, response: { 200: RenderedMail } } },
    async (request) => s.templates.render(request.params.id, request.body?.variables ?? {}),
  );
}
