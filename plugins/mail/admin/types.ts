/** The mail API's shapes as the screens read them (the routes declare no answer schemas). */

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

export type MailStatus = 'queued' | 'retrying' | 'sent' | 'failed';

/** The log's statuses in the screens' words; the API's filter values are the keys. */
export const STATUS: Record<MailStatus, { label: string; color: string }> = {
  queued: { label: 'queued', color: 'blue' },
  retrying: { label: 'retrying', color: 'orange' },
  sent: { label: 'sent', color: 'green' },
  failed: { label: 'failed', color: 'red' },
};

export interface ProviderField {
  name: string;
  label: string;
  type: 'text' | 'secret' | 'url';
  required: boolean;
  default: string | null;
}

/** An installed HTTP provider (`GET /mail-providers`). */
export interface Provider {
  id: string;
  label: string;
  docs: string | null;
  fields: ProviderField[];
}

export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  requireTls: boolean;
  user: string | null;
  allowInvalidCertificate: boolean;
  passwordSet: boolean;
}

/** `GET /mail-settings[?websiteId=]`: the scope's own settings, secrets only as "set". */
export interface MailSettings {
  scope: 'default' | 'website';
  websiteId: string | null;
  configured: boolean;
  uses?: 'default' | 'environment';
  provider: string | null;
  from?: string | null;
  fromName?: string | null;
  replyTo?: string | null;
  updatedAt?: string;
  smtp?: SmtpSettings;
  providerConfig?: Record<string, string>;
  secretsSet?: Record<string, boolean>;
}

/** A mail log entry; `html` and `text` only when read alone. */
export interface LogEntry {
  id: string;
  websiteId: string | null;
  kind: string;
  templateKey: string | null;
  to: string[];
  cc: string[];
  from: string;
  replyTo: string | null;
  subject: string;
  status: MailStatus;
  attempts: number;
  nextAttemptAt: string | null;
  provider: string | null;
  providerAnswer: string | null;
  error: string | null;
  messageId: string;
  resentFrom: string | null;
  createdAt: string;
  sentAt: string | null;
  html?: string | null;
  text?: string;
}

export interface MailTemplate {
  id: string;
  key: string;
  name: string;
  subject: string;
  /** A content node tree (as the snippet editor stores it), or null for text only. */
  html: unknown;
  text: string;
  builtIn: boolean;
  createdAt: string;
  updatedAt: string;
}

export const when = (at: string | null | undefined) => (at ? new Date(at).toLocaleString() : '—');
