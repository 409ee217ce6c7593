import { Type } from '@sinclair/typebox';
import { EnvFlag } from '../../kernel/index.ts';

/**
 * The mail plugin's environment (the kernel's secret box reads MAIL_SETTINGS_ENCRYPTION_KEY by its name).
 * SMTP_URL and MAIL_FROM kept the names they had when the kernel read them.
 */
export const MailConfig = Type.Object({
  SMTP_URL: Type.Optional(
    Type.String({
      pattern: '^smtps?://',
      description:
        'SMTP server of mail with no mail settings (password resets, form notifications before any are saved); unset = such mail is logged, not sent',
    }),
  ),
  MAIL_FROM: Type.String({
    default: 'cms@localhost',
    description: 'sender address of mail whose settings name none (and of all mail without settings)',
  }),
  MAIL_SETTINGS_ENCRYPTION_KEY: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'key sealing mail passwords, provider keys and queued reset links (64 hex chars or a passphrase); required in production to save a secret; unset outside production: generated in CMS_DATA_DIR/keys',
    }),
  ),
  MAIL_WORKER_ENABLED: EnvFlag(
    true,
    '0: this process queues mail but does not work the `mail.outbox` job queue (another process sends it)',
  ),
  MAIL_WORKER_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 32,
    default: 4,
    description:
      'mails sent at once by this process, and the connections of its SMTP pool; it runs four tries of the `mail.outbox` queue per connection (no database connection is held while sending)',
  }),
  MAIL_SEND_TIMEOUT_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 300,
    default: 30,
    description:
      'one SMTP or HTTP provider send, connection included; a timeout is retried later. A try of the `mail.outbox` queue may run twice as long; a process that died mid-try has it taken back after that plus as much again (at most 30 s more)',
  }),
});
