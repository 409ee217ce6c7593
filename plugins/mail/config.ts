import { Type } from '@sinclair/typebox';
import { EnvFlag } from '../../kernel/index.ts';

/** The mail plugin's environment (the kernel's secret box reads MAIL_SETTINGS_ENCRYPTION_KEY by its name). */
export const MailConfig = Type.Object({
  MAIL_SETTINGS_ENCRYPTION_KEY: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'key sealing mail passwords, provider keys and queued reset links (64 hex chars or a passphrase); required in production to save a secret; unset outside production: generated in CMS_DATA_DIR/keys',
    }),
  ),
  MAIL_WORKER_ENABLED: EnvFlag(true, '0: this process queues mail but does not send it (another process does)'),
  MAIL_WORKER_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 32,
    default: 4,
    description:
      'mails sent at once by this process, and the connections of its SMTP pool (no database connection is held while sending)',
  }),
  MAIL_POLL_MS: Type.Integer({
    minimum: 50,
    maximum: 600_000,
    default: 5_000,
    description: 'how often the outbox is looked at when nothing woke the worker (a mail queued here wakes it at once)',
  }),
  MAIL_SEND_TIMEOUT_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 300,
    default: 30,
    description: 'one SMTP or HTTP provider send, connection included; a timeout is retried later',
  }),
});
