import { randomBytes, randomUUID } from 'node:crypto';
import type {
  Clock,
  Db,
  Jobs,
  Logger,
  MailMessage,
  MailOutbox,
  MailPort,
  SecretBox,
  Tx,
} from '../../../kernel/index.ts';
import {
  type OutboxInsert,
  type OutboxOutcome,
  type OutboxRow,
  type OutboxStore,
  PENDING,
} from '../store/outbox-store.ts';
import { KEY_NAME, type MailSettingsService, type ResolvedSettings } from './settings.ts';
import type { MailTemplateService } from './templates.ts';
import type { OutgoingMail, SendResult, Transports } from './transports.ts';

/** The kernel job queue that sends the outbox: one job per mail log row. */
export const OUTBOX_QUEUE = 'mail.outbox';
/** What a job of `mail.outbox` carries. */
export interface OutboxJob {
  mailId: string;
}
/** Waits before the 2nd to 6th try (as the event deliveries do); the 6th failure gives up. */
export const RETRY_WAITS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 12 * 3600_000];
/** The longest a provider's Retry-After may delay the next try. */
export const MAX_RETRY_AFTER_MS = 12 * 3600_000;
/** How the log shows a secret the mail carried. */
export const HIDDEN = '[hidden]';
/** A mail whose secrets are held in memory only is sent at once; its job comes due only this much later. */
const IN_MEMORY_GRACE_MS = 24 * 3600_000;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
const placeholderPattern = (nonce: string) => new RegExp(`\\[hidden:${nonce}:(\\d+)\\]`, 'g');
/** Placeholders of any row, for display. */
const ANY_PLACEHOLDER = /\[hidden:[0-9a-f]{8}:\d+\]/g;

/** Text as the log shows it: secret placeholders as `[hidden]`. */
export function shownText(s: string): string;
export function shownText(s: string | null): string | null;
export function shownText(s: string | null): string | null {
  return s === null ? null : s.replace(ANY_PLACEHOLDER, HIDDEN);
}

type Secrets = { nonce: string; values: string[] };

export type DeliveredRow = { row: OutboxRow; outcome: OutboxOutcome; mail: OutgoingMail | undefined };

/** One send of a row: the provider's answer or problem with every secret cut out, and the mail as it left. */
export interface SendAttempt {
  result: SendResult;
  provider: string;
  mail: OutgoingMail | undefined;
}

/**
 * The outbox: `queue` (the kernel's mail port when this plugin is loaded) renders the template,
 * hides the secrets, inserts the row and enqueues its `mail.outbox` job in the caller's transaction;
 * `attempt` sends one row and says how it went (the queue's handler records it).
 */
export class MailOutboxService implements MailOutbox {
  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      log: Logger;
      mail: MailPort;
      jobs: Jobs;
      secretBox: SecretBox;
      store: OutboxStore;
      templates: MailTemplateService;
      settings: MailSettingsService;
      transports: Transports;
      /** MAIL_FROM: the sender when the mail settings name none. */
      defaultFrom: string;
      /** Host name of Message-IDs (`<row id@host>`). */
      host: string;
    },
  ) {}

  async queue(message: MailMessage, trx?: Tx): Promise<void> {
    const rendered = message.template
      ? await this.deps.templates.renderByKey(message.template.key, message.template.variables)
      : undefined;
    const settings = await this.deps.settings.resolve(message.websiteId ?? null);
    const id = randomUUID();
    let subject = rendered?.subject ?? message.subject;
    let html = rendered ? rendered.html : message.html;
    let text = rendered?.text ?? message.text;
    let secretsSealed: string | null = null;
    let unsealable: Secrets | undefined;
    const secrets = (message.secrets ?? []).filter((s) => s.length >= 4);
    if (secrets.length) {
      // Longest first, so a link is hidden whole before the token inside it.
      const values = [...secrets].sort((a, b) => b.length - a.length);
      const nonce = randomBytes(4).toString('hex');
      values.forEach((value, i) => {
        const placeholder = `[hidden:${nonce}:${i}]`;
        subject = subject.replaceAll(value, placeholder);
        text = text.replaceAll(value, placeholder);
        html = html?.replaceAll(escapeHtml(value), placeholder).replaceAll(value, placeholder);
      });
      if (this.deps.secretBox.hasKey(KEY_NAME))
        secretsSealed = this.deps.secretBox.encrypt(KEY_NAME, JSON.stringify({ nonce, values }));
      // In production without the key the secrets cannot be stored, even sealed: this process sends
      // the mail right after the commit, holding them in memory only (not retried after a restart).
      else unsealable = { nonce, values };
    }
    const row: OutboxInsert = {
      id,
      website_id: message.websiteId ?? null,
      kind: message.kind ?? 'message',
      template_key: rendered ? message.template!.key : null,
      to_addresses: [message.to],
      cc_addresses: [],
      from_address: settings?.from ?? this.deps.defaultFrom,
      reply_to: settings?.replyTo ?? null,
      subject,
      html: html ?? null,
      text,
      secrets_sealed: secretsSealed,
      message_id: `<${id}@${this.deps.host}>`,
      resent_from: null,
    };
    const now = this.deps.clock.now();
    // Secrets in memory: not due for a day, so no runner takes the job before this process sent the
    // mail; if this process dies first, the job finds the secrets gone and gives the mail up.
    const dueAt = unsealable ? new Date(now.getTime() + IN_MEMORY_GRACE_MS) : now;
    await this.insertQueued(row, now, dueAt, trx);
    if (!unsealable) return;
    const inMemory = unsealable;
    const send = () =>
      this.sendNow(id, inMemory).catch((err) => this.deps.log.error({ err, mail: id }, 'mail: sending at once failed'));
    if (trx) void trx.executionPromise.then(send, () => undefined);
    else await send();
  }

  /** The row and its job, in one transaction (the caller's when given). */
  private async insertQueued(row: OutboxInsert, now: Date, dueAt: Date, trx: Tx | undefined): Promise<void> {
    const write = async (t: Tx) => {
      await this.deps.store.insert(row, now, t, dueAt);
      await this.deps.jobs.enqueue<OutboxJob>(OUTBOX_QUEUE, { mailId: row.id }, { trx: t, runAt: dueAt });
    };
    if (trx) await write(trx);
    else await this.deps.db.transaction(write);
  }

  /**
   * Enqueues the jobs of rows queued before the outbox was a job queue (once, at start), each due when
   * its row is; the key (the row's id) keeps two processes starting at once from enqueuing one twice.
   */
  async enqueueUnqueued(): Promise<number> {
    return this.deps.db.transaction(async (trx) => {
      const rows = await this.deps.store.takeUnqueued(trx);
      for (const row of rows)
        await this.deps.jobs.enqueue<OutboxJob>(
          OUTBOX_QUEUE,
          { mailId: row.id },
          { trx, runAt: row.next_attempt_at, key: row.id },
        );
      return rows.length;
    });
  }

  /**
   * Sends one pending row now, in a transaction holding its lock, and records the outcome: sent or
   * failed, never retried (test mails; mails whose secrets are only in memory). A job of the row that
   * comes due later finds it finished and does nothing.
   */
  async sendNow(id: string, secrets?: Secrets, trx?: Tx): Promise<DeliveredRow | undefined> {
    const work = async (t: Tx) => {
      const row = await this.deps.store.lock(id, t);
      if (!row || !PENDING.includes(row.status)) return undefined;
      const { result, provider, mail } = await this.attempt(row, secrets);
      const now = this.deps.clock.now();
      const outcome: OutboxOutcome = {
        status: result.kind === 'sent' ? 'sent' : 'failed',
        attempts: row.attempts + 1,
        nextAttemptAt: now,
        provider,
        providerAnswer: result.kind === 'sent' ? result.answer : null,
        delivered: result.kind === 'sent' ? result.delivered : null,
        lastError: result.kind === 'sent' ? null : result.problem,
        sentAt: result.kind === 'sent' ? now : null,
        dropSecrets: true,
      };
      await this.deps.store.finish(id, outcome, t);
      return { row, outcome, mail };
    };
    const delivered = trx ? await work(trx) : await this.deps.db.transaction(work);
    if (delivered && !trx) this.announceSent(delivered);
    return delivered;
  }

  /** A new row with the content of a finished one, and its job (`POST /mail-log/:id/resend`). */
  async requeueCopy(source: OutboxRow, trx?: Tx): Promise<string> {
    const id = randomUUID();
    const now = this.deps.clock.now();
    await this.insertQueued(
      {
        id,
        website_id: source.website_id,
        kind: source.kind,
        template_key: source.template_key,
        to_addresses: source.to_addresses,
        cc_addresses: source.cc_addresses,
        from_address: source.from_address,
        reply_to: source.reply_to,
        subject: source.subject,
        html: source.html,
        text: source.text,
        secrets_sealed: null,
        message_id: `<${id}@${this.deps.host}>`,
        resent_from: source.id,
      },
      now,
      now,
      trx,
    );
    return id;
  }

  /** Inserts a row as `queue` does, without a job, and answers its id (test mails are sent at once by the caller). */
  async insertForTest(
    row: Omit<OutboxInsert, 'id' | 'message_id' | 'secrets_sealed' | 'resent_from'>,
    trx: Tx,
  ): Promise<string> {
    const id = randomUUID();
    await this.deps.store.insert(
      { ...row, id, message_id: `<${id}@${this.deps.host}>`, secrets_sealed: null, resent_from: null },
      this.deps.clock.now(),
      trx,
    );
    return id;
  }

  /**
   * Sends one row through its website's settings. Never throws: a problem before the send (settings,
   * sealed secrets) is a temporary failure, secrets that are gone a permanent one. Answers and
   * problems come back with every secret value cut out.
   */
  async attempt(row: OutboxRow, secretsInMemory?: Secrets): Promise<SendAttempt> {
    let settings: ResolvedSettings | undefined;
    let mail: OutgoingMail | undefined;
    let result: SendResult;
    let hiddenValues: string[] = [];
    try {
      settings = await this.deps.settings.resolve(row.website_id);
      const secrets = secretsInMemory ?? this.unsealSecrets(row);
      hiddenValues = secrets?.values ?? [];
      if (!secrets && /\[hidden:[0-9a-f]{8}:\d+\]/.test(row.text))
        result = { kind: 'permanent', problem: 'the one-time secrets of this mail are gone; it cannot be sent again' };
      else {
        mail = this.outgoing(row, settings, secrets);
        result = await this.deps.transports.send(settings, mail);
      }
    } catch (err) {
      this.deps.log.error({ err, mail: row.id }, 'mail: preparing a send failed');
      result = { kind: 'temporary', problem: `internal error before sending: ${(err as Error).message}` };
    }
    const scrub = (s: string) => scrubbed(s, [...(settings?.secretValues ?? []), ...hiddenValues]);
    const provider = settings?.provider ?? 'environment';
    if (result.kind === 'sent')
      return { result: { kind: 'sent', answer: scrub(result.answer), delivered: result.delivered }, provider, mail };
    return { result: { ...result, problem: scrub(result.problem) }, provider, mail };
  }

  /** Tells the kernel port's observers about a sent mail (after its row committed). */
  announceSent(delivered: DeliveredRow): void {
    if (delivered.outcome.status !== 'sent' || !delivered.mail) return;
    const m = delivered.mail;
    this.deps.mail.notifySent({
      to: m.to.join(', '),
      subject: m.subject,
      text: m.text,
      html: m.html,
      kind: delivered.row.kind,
      websiteId: delivered.row.website_id ?? undefined,
    });
  }

  private unsealSecrets(row: OutboxRow): { nonce: string; values: string[] } | undefined {
    if (!row.secrets_sealed) return undefined;
    return JSON.parse(this.deps.secretBox.decrypt(row.secrets_sealed)) as { nonce: string; values: string[] };
  }

  private outgoing(
    row: OutboxRow,
    settings: ResolvedSettings | undefined,
    secrets: { nonce: string; values: string[] } | undefined,
  ): OutgoingMail {
    const reveal = (s: string, html: boolean) =>
      secrets
        ? s.replace(placeholderPattern(secrets.nonce), (_, i: string) => {
            const v = secrets.values[Number(i)] ?? '';
            return html ? escapeHtml(v) : v;
          })
        : s;
    const fromName = settings?.fromName ?? undefined;
    return {
      from: row.from_address,
      fromName,
      fromHeader: fromName ? `"${fromName.replace(/["\\]/g, '')}" <${row.from_address}>` : row.from_address,
      to: row.to_addresses,
      cc: row.cc_addresses,
      replyTo: row.reply_to ?? undefined,
      subject: reveal(row.subject, false),
      html: row.html === null ? undefined : reveal(row.html, true),
      text: reveal(row.text, false),
      messageId: row.message_id,
    };
  }
}

/** A provider's answer or error with every secret value cut out, before it is stored. */
function scrubbed(text: string, secrets: string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.replaceAll(s, HIDDEN);
  return out;
}
