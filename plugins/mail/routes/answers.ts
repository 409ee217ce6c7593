import { Type } from '@sinclair/typebox';

/*
 * The answers of the mail routes. Fastify serialises each answer by these schemas, so what is not
 * named here (an SMTP password or a provider key, even unsealed; the sealed secrets of a queued mail;
 * a worker's claim on it; the outbox's sequence number) never reaches a client.
 */

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const NullableText = Nullable(Type.String());
const Time = Type.String({ format: 'date-time' });

export const MailStatus = Type.Union(['queued', 'retrying', 'sent', 'failed'].map((s) => Type.Literal(s)));

const SmtpSettings = Type.Object({
  host: Type.String(),
  port: Type.Integer(),
  secure: Type.Boolean(),
  requireTls: Type.Boolean(),
  user: NullableText,
  allowInvalidCertificate: Type.Boolean(),
  passwordSet: Type.Boolean({ description: 'whether a password is stored; the password itself is never shown' }),
});

/** `GET /mail-settings[?websiteId=]`: this scope's own settings, secrets only as "set". */
export const MailSettings = Type.Object({
  scope: Type.Union([Type.Literal('default'), Type.Literal('website')]),
  websiteId: Nullable(Type.String({ format: 'uuid' })),
  configured: Type.Boolean(),
  uses: Type.Optional(
    Type.Union([Type.Literal('default'), Type.Literal('environment')], {
      description: 'without settings of its own: what sends this scope’s mail',
    }),
  ),
  provider: NullableText,
  from: Type.Optional(NullableText),
  fromName: Type.Optional(NullableText),
  replyTo: Type.Optional(NullableText),
  updatedAt: Type.Optional(Time),
  smtp: Type.Optional(SmtpSettings),
  providerConfig: Type.Optional(
    Type.Record(Type.String(), Type.String(), { description: 'the provider’s settings that are not secret' }),
  ),
  secretsSet: Type.Optional(Type.Record(Type.String(), Type.Boolean(), { description: 'which secrets are stored' })),
});

export const TestMailSent = Type.Object({
  id: Type.String({ description: 'the mail log entry' }),
  status: MailStatus,
  provider: NullableText,
  providerAnswer: NullableText,
});

export const Providers = Type.Object({
  providers: Type.Array(
    Type.Object({
      id: Type.String(),
      label: Type.String(),
      docs: NullableText,
      fields: Type.Array(
        Type.Object({
          name: Type.String(),
          label: Type.String(),
          type: Type.Union([Type.Literal('text'), Type.Literal('secret'), Type.Literal('url')]),
          required: Type.Boolean(),
          default: NullableText,
        }),
      ),
    }),
  ),
});

const logEntryFields = {
  id: Type.String(),
  websiteId: NullableText,
  kind: Type.String(),
  templateKey: NullableText,
  to: Type.Array(Type.String()),
  cc: Type.Array(Type.String()),
  from: Type.String(),
  replyTo: NullableText,
  subject: Type.String(),
  status: MailStatus,
  attempts: Type.Integer(),
  nextAttemptAt: Nullable(Time),
  provider: NullableText,
  providerAnswer: NullableText,
  delivered: Type.Union([Type.Boolean(), Type.Null()], {
    description:
      'a sent mail: true when a mail server (SMTP or the provider) took it, false when it was only written to the service log (no mail settings and no SMTP_URL); null until sent',
  }),
  error: NullableText,
  messageId: Type.String(),
  resentFrom: NullableText,
  createdAt: Time,
  sentAt: Nullable(Time),
};

/** A mail log entry as lists show it (no body). */
export const LogEntry = Type.Object(logEntryFields);
/** One entry read alone: with its body (one-time secrets shown as placeholders). */
export const LogEntryWithBody = Type.Object({
  ...logEntryFields,
  html: Type.Optional(NullableText),
  text: Type.Optional(Type.String()),
});
export const LogPage = Type.Object({ entries: Type.Array(LogEntry), total: Type.Integer() });
export const DeletedEntries = Type.Object({
  deleted: Type.Integer(),
  kept: Type.Array(Type.String(), { description: 'ids not deleted: unknown, or still to be sent' }),
});

export const MailTemplate = Type.Object({
  id: Type.String(),
  key: Type.String(),
  name: Type.String(),
  subject: Type.String(),
  html: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
    description: 'a content node tree (as the snippet editor stores it), or null for text only',
  }),
  text: Type.String(),
  builtIn: Type.Boolean(),
  createdAt: Time,
  updatedAt: Time,
});
export const TemplateList = Type.Object({ templates: Type.Array(MailTemplate) });

export const RenderedMail = Type.Object({
  subject: Type.String(),
  html: Type.Optional(Type.String()),
  text: Type.String(),
});

/** A 204 (the kernel's `emptyAnswer`: a `null` schema; the handler sends nothing). */
export const NoContent = Type.Unsafe<undefined>({ type: 'null', description: 'done; no body' });
