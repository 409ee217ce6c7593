import type { Transporter } from 'nodemailer';
import type { Logger } from './logger.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** Something that actually sends (SMTP, or the log in development). */
interface MailSender {
  send(message: MailMessage & { from: string }): Promise<void>;
}

/**
 * The kernel's mail port. It sends through SMTP from `SMTP_URL`, or, when that is unset, a transport that only logs the message (development: subject and body, so a reset link can
 * be followed; production: recipient and subject only).
 */
export class MailPort {
  private readonly sender: MailSender;
  private readonly listeners = new Set<(m: MailMessage) => void>();

  constructor(private readonly opts: { smtpUrl?: string; from: string; production: boolean; logger: Logger }) {
    this.sender = opts.smtpUrl ? smtpSender(opts.smtpUrl) : this.logSender();
  }

  /** Observe sent messages (a mail log, or a test reading the reset token). */
  onSent(listener: (m: MailMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async send(message: MailMessage): Promise<void> {
    await this.sender.send({ ...message, from: this.opts.from });
    for (const listener of this.listeners) listener(message);
  }

  private logSender(): MailSender {
    const log = this.opts.logger.child({ component: 'mail' });
    return {
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
    send: async (m) => {
      transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(url));
      await (await transport).sendMail(m);
    },
  };
}
