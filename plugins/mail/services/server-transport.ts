import type { Transporter } from 'nodemailer';
import type { Logger } from '../../../kernel/index.ts';

/** One mail as the server's own transport sends it. */
export interface ServerMail {
  to: string;
  from: string;
  subject: string;
  text: string;
  html?: string;
}

/**
 * The server's own transport, used for a mail whose scope has no mail settings: SMTP through
 * `SMTP_URL`, or, when that is unset, the service log (development: subject and body, so a reset link
 * can be followed; production: recipient and subject only).
 */
export interface ServerTransport {
  /** `smtp` when a server took the mail, `log` when it was only written to the service log. */
  readonly via: 'smtp' | 'log';
  send(mail: ServerMail): Promise<void>;
}

export function serverTransport(opts: { smtpUrl?: string; production: boolean; logger: Logger }): ServerTransport {
  return opts.smtpUrl ? smtpTransport(opts.smtpUrl) : logTransport(opts.logger, opts.production);
}

/** SMTP through nodemailer, imported (and its transport made) when the first mail is sent. */
function smtpTransport(url: string): ServerTransport {
  let transport: Promise<Transporter> | undefined;
  return {
    via: 'smtp',
    send: async (m) => {
      transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(url));
      await (await transport).sendMail({ to: m.to, from: m.from, subject: m.subject, text: m.text, html: m.html });
    },
  };
}

function logTransport(logger: Logger, production: boolean): ServerTransport {
  const log = logger.child({ component: 'mail' });
  return {
    via: 'log',
    send: async (m) => {
      if (production) log.info({ to: m.to, subject: m.subject }, 'mail (no SMTP_URL set: logged, not sent)');
      else log.info({ to: m.to, subject: m.subject, text: m.text }, 'mail (no SMTP_URL set: logged, not sent)');
    },
  };
}
