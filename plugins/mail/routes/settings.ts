import { type App, requestContext } from '../../../kernel/index.ts';
import { MAIL_MANAGE } from '../permissions.ts';
import type { MailServices } from '../services/index.ts';
import { MailSettings, NoContent, Providers, TestMailSent } from './answers.ts';
import { PutSettings, ScopeQuery, TestBody } from './schemas.ts';

const config = { permission: MAIL_MANAGE };
const tags = ['mail'];

/** /mail-settings (default or `?websiteId=`), /mail-settings/test and /mail-providers. */
export async function settingsRoutes(app: App, s: MailServices): Promise<void> {
  app.get(
    '/mail-settings',
    { config, schema: { tags, querystring: ScopeQuery, response: { 200: MailSettings } } },
    async (request) => s.settings.describe(request.query.websiteId),
  );

  app.put(
    '/mail-settings',
    { config, schema: { tags, querystring: ScopeQuery, body: PutSettings, response: { 200: MailSettings } } },
    async (request) => {
      // The default settings deliver password-reset mail (a website's own ones deliver its forms' mail).
      if (!request.query.websiteId) s.accountMail.require(request.actor, 'the default mail settings');
      return s.settings.update(requestContext(request), request.query.websiteId, request.body);
    },
  );

  app.delete(
    '/mail-settings',
    { config, schema: { tags, querystring: ScopeQuery, response: { 204: NoContent } } },
    async (request, reply) => {
      await s.settings.remove(requestContext(request), request.query.websiteId);
      return reply.code(204).send();
    },
  );

  app.post(
    '/mail-settings/test',
    // Sends a mail now: off under the sandbox profile (403 SANDBOX_BLOCKED).
    {
      config: { ...config, sandbox: 'block' },
      schema: { tags, querystring: ScopeQuery, body: TestBody, response: { 200: TestMailSent } },
    },
    async (request) => s.testMail.send(request.query.websiteId, request.body.to),
  );

  app.get('/mail-providers', { config, schema: { tags, response: { 200: Providers } } }, async () => ({
    providers: s.providers.list().map((p) => ({
      id: p.id,
      label: p.label,
      docs: p.docs ?? null,
      fields: p.fields.map((f) => ({
        name: f.name,
        label: f.label,
        type: f.type,
        required: f.required ?? false,
        default: f.default ?? null,
      })),
    })),
  }));
}
