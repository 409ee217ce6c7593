import type { Transporter } from 'nodemailer';
import type { Clock } from './clock.ts';
import type { Tx } from './database.ts';
import type { Logger } from './logger.ts';
import { MemoryRateLimitStore, type RateLimitStore } from './rate-limit.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /**
   * An administrator-editable template: when a mail plugin serves the port and has a template under
   * `key`, its subject, HTML and text (filled with `variables`, escaped in HTML) replace the ones given
   * here, which stay the fallback.
   */
  template?: { key: string; variables: Record<string, string> };
  /** Values the mail carries that no log may keep (a one-time link, a token): sent, never stored in clear. */
  secrets?: string[];
  /** The website the mail is for: its own mail settings apply when it has some. */
  websiteId?: string;
  /** What the mail is (`password-reset`, `form-notification`, ...), as a mail log shows it. */
  kind?: string;
}

export interface MailSendOptions {
  /** The caller's transaction: the mail is queued in it and goes out only if it commits. */
  trx?: Tx;
  /**
   * At most `max` mails per `key` in `windowMs` (counted by the kernel's rate limiter in this
   * process); a mail over the limit is dropped and `send` answers `{ accepted: false }`.
   */
  throttle?: { key: string; max: number; windowMs: number };
}

/** What serves the port when a mail plugin is loaded: it keeps the mail (durably) and sends it later. */
export interface MailOutbox {
  queue(message: MailMessage, trx?: Tx): Promise<void>;
}

/** Something that actually sends (SMTP, or the log in development). */
interface MailSender {
  /** `smtp` when a server took the mail, `log` when it was only written to the service log. */
  readonly via: 'smtp' | 'log';
  send(message: MailMessage & { from: string }): Promise<void>;
}

/**
 * The kernel's mail port. A mail plugin may serve it (`serveWith`): then every mail is handed to its
 * outbox. Otherwise it sends through SMTP from `SMTP_URL`, or, when that is unset, a transport that
 * only logs the message (development: subject and body, so a reset link can be followed; production:
 * recipient and subject only).
 */
export class MailPort {
  private readonly sender: MailSender;
  private readonly listeners = new Set<(m: MailMessage) => void>();
  private readonly throttles: RateLimitStore;
  private outbox: MailOutbox | undefined;

  constructor(
    private readonly opts: {
      smtpUrl?: string;
      from: string;
      production: boolean;
      logger: Logger;
      clock: Clock;
      /** Where `throttle` counts: the kernel's rate-limit store, shared by every process. */
      throttles?: RateLimitStore;
    },
  ) {
    this.sender = opts.smtpUrl ? smtpSender(opts.smtpUrl) : this.logSender();
    this.throttles = opts.throttles ?? new MemoryRateLimitStore(opts.clock);
  }

  /** The sender address of kernel mail (`MAIL_FROM`). */
  get defaultFrom(): string {
    return this.opts.from;
  }

  /** Observe sent messages (a mail log, or a test reading the reset token). */
  onSent(listener: (m: MailMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A mail plugin takes the port over: from now on `send` hands every mail to `outbox`. Returns the undo. */
  serveWith(outbox: MailOutbox): () => void {
    this.outbox = outbox;
    return () => {
      if (this.outbox === outbox) this.outbox = undefined;
    };
  }

  /**
   * Sends (or, when a mail plugin serves the port, queues) a mail. With `trx` nothing leaves before
   * the transaction commits. `accepted: false` when `throttle` dropped it.
   */
  async send(message: MailMessage, opts: MailSendOptions = {}): Promise<{ accepted: boolean }> {
    if (opts.throttle) {
      const { key, max, windowMs } = opts.throttle;
      if ((await this.throttles.hit('mail:throttle', key, windowMs, max)).count > max) return { accepted: false };
    }
    if (this.outbox) {
      await this.outbox.queue(message, opts.trx);
      return { accepted: true };
    }
    if (opts.trx) {
      const log = this.opts.logger;
      // A rolled-back transaction sends nothing; a failed send after the commit is logged.
      void opts.trx.executionPromise.then(
        () => this.sendNow(message).catch((err) => log.error({ err }, 'mail after commit failed')),
        () => undefined,
      );
      return { accepted: true };
    }
    await this.sendNow(message);
    return { accepted: true };
  }

  private async sendNow(message: MailMessage): Promise<void> {
    await this.sendThroughServerTransport(message);
    this.notifySent(message);
  }

  /**
   * Sends through the kernel's own transport (`SMTP_URL`, or the log) without telling the observers: a
   * mail plugin with nothing configured uses it, and tells them once it recorded the outcome.
   */
  async sendThroughServerTransport(message: MailMessage, from = this.opts.from): Promise<{ via: 'smtp' | 'log' }> {
    await this.sender.send({ ...message, from });
    return { via: this.sender.via };
  }

  /** Tells the observers that a mail went out (a mail plugin calls it after its own transports sent). */
  notifySent(message: MailMessage): void {
    for (const listener of this.listeners) listener(message);
  }

  private logSender(): MailSender {
    const log = this.opts.logger.child({ component: 'mail' });
    return {
      via: 'log',
      send: async (m) => {
        if (this.opts.production)
          log.info({ to: m.to, subject: m.subject }, 'mail (no SMTP_URL set: logged, not sent)');
        else log.info({ to: m.to, subject: m.subject, text: m.text }, 'mail (no SMTP_URL set: logged, not sent)');
      },
    };
  }
}

/** SMTP through nodemailer, imported (and its transport made) when the first message is sent. */
function smtpSender(url: string): MailSender {
  let transport: Promise<Transporter> | undefined;
  return {
    via: 'smtp',
    send: async (m) => {
      transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(url));
      await (await transport).sendMail({ to: m.to, from: m.from, subject: m.subject, text: m.text, html: m.html });
    },
  };
}
