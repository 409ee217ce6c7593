import { Type } from '@sinclair/typebox';
import { EnvFlag } from '../../kernel/index.ts';

/** The mail plugin's environment (MAIL_SETTINGS_ENCRYPTION_KEY is read by the kernel's secret box by name). */
export const MailConfig = Type.Object({
  MAIL_WORKER_ENABLED: EnvFlag(true, '0: this process queues mail but does not send it (another process does)'),
  MAIL_WORKER_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 32,
    default: 4,
    description: 'mails sent at once by this process (each holds one database connection while sending)',
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
