import { type Db, HttpError } from '../../../kernel/index.ts';
import type { MailOutboxService } from './outbox.ts';
import type { MailSettingsService } from './settings.ts';
import type { MailTemplateService } from './templates.ts';

/**
 * `POST /mail-settings/test`: a mail with the `test` template through the settings of the default or
 * a website, sent while the request waits (no retry), kept in the log like any other; not audited.
 */
export class TestMail {
  constructor(
    private readonly deps: {
      db: Db;
      outbox: MailOutboxService;
      settings: MailSettingsService;
      templates: MailTemplateService;
      siteUrl: string;
      defaultFrom: string;
    },
  ) {}

  async send(websiteId: string | undefined, to: string) {
    await this.deps.settings.checkWebsite(websiteId);
    const settings = await this.deps.settings.resolve(websiteId ?? null);
    const variables = {
      siteUrl: this.deps.siteUrl,
      settings: websiteId ? `website ${websiteId}` : 'default',
      provider: settings?.provider ?? 'server SMTP_URL or log',
    };
    const rendered = (await this.deps.templates.renderByKey('test', variables)) ?? {
      subject: `Test mail from ${variables.siteUrl}`,
      text: `This is a test mail sent with the ${variables.settings} mail settings (${variables.provider}).\n`,
      html: undefined,
    };
    // Inserted and sent in one transaction: the background worker never sees the row until it is done.
    const delivered = await this.deps.db.transaction(async (trx) => {
      const id = await this.deps.outbox.insertForTest(
        {
          website_id: websiteId ?? null,
          kind: 'test',
          template_key: 'test',
          to_addresses: [to],
          cc_addresses: [],
          from_address: settings?.from ?? this.deps.defaultFrom,
          reply_to: settings?.replyTo ?? null,
          subject: rendered.subject,
          html: rendered.html ?? null,
          text: rendered.text,
        },
        trx,
      );
      return (await this.deps.outbox.sendNow(id, undefined, trx))!;
    });
    const id = delivered.row.id;
    this.deps.outbox.announceSent(delivered);
    const { outcome } = delivered;
    if (outcome.status !== 'sent')
      throw new HttpError(
        502,
        'MAIL_TEST_FAILED',
        `The test mail was not sent (log entry ${id}): ${outcome.lastError}`,
      );
    return { id, status: outcome.status, provider: outcome.provider, providerAnswer: outcome.providerAnswer };
  }
}
