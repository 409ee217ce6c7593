import type { ApiAnswer } from '../../admin-ui/app/src/sdk/index.ts';

/** The query keys of the mail screens, and the mail API's answers as they read them. */

export const MAIL_KEY = ['mail'] as const;
export const KEYS = {
  settings: (websiteId: string) => ['mail', 'settings', websiteId] as const,
  providers: ['mail', 'providers'] as const,
  websites: ['mail', 'websites'] as const,
  log: ['mail', 'log'] as const,
  entry: (id: string) => ['mail', 'log', 'entry', id] as const,
  templates: ['mail', 'templates'] as const,
  template: (id: string) => ['mail', 'templates', id] as const,
};

/** A mail log entry; `html` and `text` only when read alone. */
export type LogEntry = ApiAnswer<'/mail-log/{id}', 'get'>;

export type MailStatus = LogEntry['status'];

/** The log's statuses in the screens' words; the API's filter values are the keys. */
/**
 * How a mail's status reads: a `sent` mail that the server only wrote to its log (no mail settings
 * and no SMTP_URL: `delivered` false) says so instead of "sent".
 */
export function statusOf(mail: { status: MailStatus; delivered?: boolean | null }): {
  label: string;
  color: string;
} {
  if (mail.status === 'sent' && mail.delivered === false) return { label: 'logged, not delivered', color: 'gray' };
  return STATUS[mail.status];
}

export const STATUS: Record<MailStatus, { label: string; color: string }> = {
  queued: { label: 'queued', color: 'blue' },
  retrying: { label: 'retrying', color: 'orange' },
  sent: { label: 'sent', color: 'green' },
  failed: { label: 'failed', color: 'red' },
};

/** An installed HTTP provider (`GET /mail-providers`). */
export type Provider = ApiAnswer<'/mail-providers', 'get'>['providers'][number];

/** `GET /mail-settings[?websiteId=]`: the scope's own settings, secrets only as "set". */
export type MailSettings = ApiAnswer<'/mail-settings', 'get'>;

export type MailTemplate = ApiAnswer<'/mail-templates/{id}', 'get'>;

export const when = (at: string | null | undefined) => (at ? new Date(at).toLocaleString() : '—');
