import { type Db, conflict, notFound } from '../../../kernel/index.ts';
import { FINISHED, type LogFilter, type OutboxRow, type OutboxStore } from '../store/outbox-store.ts';
import { type MailOutboxService, shownText } from './outbox.ts';

const SECRET_PLACEHOLDER = /\[hidden:[0-9a-f]{8}:\d+\]/;

/** One log entry as the API shows it; `html` and `text` only for one entry. */
function entry(row: OutboxRow, withBody: boolean) {
  return {
    id: row.id,
    websiteId: row.website_id,
    kind: row.kind,
    templateKey: row.template_key,
    to: row.to_addresses,
    cc: row.cc_addresses,
    from: row.from_address,
    replyTo: row.reply_to,
    subject: shownText(row.subject),
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'queued' || row.status === 'retrying' ? row.next_attempt_at.toISOString() : null,
    provider: row.provider,
    providerAnswer: row.provider_answer,
    delivered: row.status === 'sent' ? row.delivered : null,
    error: row.last_error,
    messageId: row.message_id,
    resentFrom: row.resent_from,
    createdAt: row.created_at.toISOString(),
    sentAt: row.sent_at?.toISOString() ?? null,
    ...(withBody ? { html: shownText(row.html), text: shownText(row.text) } : {}),
  };
}

/** The mail log: list with filters and paging, one entry, bulk delete of finished entries, resend. */
export class MailLogService {
  constructor(private readonly deps: { db: Db; store: OutboxStore; outbox: MailOutboxService }) {}

  async list(filter: LogFilter, limit: number, offset: number) {
    const { rows, total } = await this.deps.store.list(filter, limit, offset);
    return { entries: rows.map((r) => entry(r, false)), total };
  }

  async get(id: string) {
    return entry(await this.row(id), true);
  }

  /** Deletes the finished entries among `ids`; queued and retrying ones stay (they are still to be sent). */
  async delete(ids: string[]): Promise<{ deleted: number; kept: string[] }> {
    const deleted = await this.deps.db.transaction((trx) => this.deps.store.deleteFinished(ids, trx));
    const gone = new Set(deleted);
    return { deleted: deleted.length, kept: ids.filter((id) => !gone.has(id)) };
  }

  /** Queues a copy of a finished mail; 409 for one still to be sent or one that carried a one-time secret. */
  async resend(id: string) {
    const row = await this.row(id);
    if (!FINISHED.includes(row.status))
      throw conflict('This mail is still queued; it will be sent', 'MAIL_NOT_FINISHED');
    if ([row.subject, row.text, row.html ?? ''].some((s) => SECRET_PLACEHOLDER.test(s)))
      throw conflict(
        'This mail carried a one-time secret (a reset link) and cannot be sent again',
        'MAIL_NOT_RESENDABLE',
      );
    const copy = await this.deps.outbox.requeueCopy(row);
    return entry((await this.deps.store.byId(copy))!, false);
  }

  private async row(id: string): Promise<OutboxRow> {
    const row = await this.deps.store.byId(id);
    if (!row) throw notFound('Mail log entry not found', 'MAIL_NOT_FOUND');
    return row;
  }
}
