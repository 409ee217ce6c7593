import type { App } from '../../../kernel/index.ts';
import { MAIL_MANAGE } from '../permissions.ts';
import type { MailServices } from '../services/index.ts';
import { DeletedEntries, LogEntry, LogEntryWithBody, LogPage } from './answers.ts';
import { DeleteBody, IdParams, LogQuery } from './schemas.ts';

const config = { permission: MAIL_MANAGE };
const tags = ['mail'];

/** /mail-log: list with filters and paging, one entry, bulk delete, resend. */
export async function logRoutes(app: App, s: MailServices): Promise<void> {
  app.get(
    '/mail-log',
    { config, schema: { tags, querystring: LogQuery, response: { 200: LogPage } } },
    async (request) => {
      const q = request.query;
      return s.log.list(
        {
          status: q.status as 'queued' | undefined,
          kind: q.kind,
          recipient: q.recipient,
          websiteId: q.websiteId,
          q: q.q,
          since: q.since ? new Date(q.since) : undefined,
          until: q.until ? new Date(q.until) : undefined,
        },
        q.limit ?? 50,
        q.offset ?? 0,
      );
    },
  );

  app.get(
    '/mail-log/:id',
    { config, schema: { tags, params: IdParams, response: { 200: LogEntryWithBody } } },
    async (request) => s.log.get(request.params.id),
  );

  app.post(
    '/mail-log/delete',
    { config, schema: { tags, body: DeleteBody, response: { 200: DeletedEntries } } },
    async (request) => s.log.delete(request.body.ids),
  );

  // Queues the mail again for sending: off under the sandbox profile (403 SANDBOX_BLOCKED).
  app.post(
    '/mail-log/:id/resend',
    { config: { ...config, sandbox: 'block' }, schema: { tags, params: IdParams, response: { 202: LogEntry } } },
    async (request, reply) => reply.code(202).send(await s.log.resend(request.params.id)),
  );
}
