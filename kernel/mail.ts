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
   * At most `max` mails per `key` in `windowMs` (counted in the kernel's rate-limit store, across
   * processes); a mail over the limit is dropped and `send` answers `{ accepted: false, reason: 'throttled' }`.
   */
  throttle?: { key: string; max: number; windowMs: number };
}

/** What serves the port when a mail plugin is loaded: it keeps the mail (durably) and sends it later. */
export interface MailOutbox {
  queue(message: MailMessage, trx?: Tx): Promise<void>;
}

/** How `send` went: `throttled` when `throttle` dropped it, `no-mail-plugin` when nothing serves the port. */
export type MailSendResult = { accepted: true } | { accepted: false; reason: 'throttled' | 'no-mail-plugin' };

/**
 * The kernel's mail port: plugins that send mail (password resets, form notifications) call `send`;
 * the mail plugin serves it (`serveWith`) with its outbox, settings, templates and transports. The
 * kernel has no transport of its own: without a mail plugin a mail is not sent, and `send` and the
 * service log say so.
 */
export class MailPort {
  private readonly listeners = new Set<(m: MailMessage) => void>();
  private readonly throttles: RateLimitStore;
  private outbox: MailOutbox | undefined;

  constructor(
    private readonly opts: {
      logger: Logger;
      clock: Clock;
      /** Where `throttle` counts: the kernel's rate-limit store, shared by every process. */
      throttles?: RateLimitStore;
    },
  ) {
    this.throttles = opts.throttles ?? new MemoryRateLimitStore(opts.clock);
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
   * Hands a mail to the mail plugin's outbox; with `trx` it is queued in that transaction and leaves
   * only if it commits. Not accepted when `throttle` dropped it or no mail plugin serves the port.
   */
  async send(message: MailMessage, opts: MailSendOptions = {}): Promise<MailSendResult> {
    if (opts.throttle) {
      const { key, max, windowMs } = opts.throttle;
      if ((await this.throttles.hit('mail:throttle', key, windowMs, max)).count > max)
        return { accepted: false, reason: 'throttled' };
    }
    if (!this.outbox) {
      this.opts.logger.warn(
        { to: message.to, subject: message.subject, kind: message.kind },
        'mail not sent: no mail plugin is loaded (it is turned off in CMS_DISABLED_PLUGINS, or this process does not run it)',
      );
      return { accepted: false, reason: 'no-mail-plugin' };
    }
    await this.outbox.queue(message, opts.trx);
    return { accepted: true };
  }

  /** Tells the observers that a mail went out (the mail plugin calls it once its transport sent it). */
  notifySent(message: MailMessage): void {
    for (const listener of this.listeners) listener(message);
  }
}
