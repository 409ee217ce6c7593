import { Type } from '@sinclair/typebox';

export const IdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
export const ScopeQuery = Type.Object(
  { websiteId: Type.Optional(Type.String({ format: 'uuid' })) },
  { additionalProperties: false },
);

const Text = (max: number) => Type.String({ maxLength: max });
const NullableText = (max: number) => Type.Union([Type.String({ maxLength: max }), Type.Null()]);

const SmtpFields = {
  host: Type.Optional(Text(253)),
  port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  secure: Type.Optional(Type.Boolean()),
  requireTls: Type.Optional(Type.Boolean()),
  user: Type.Optional(NullableText(254)),
  password: Type.Optional(NullableText(1000)),
  allowInvalidCertificate: Type.Optional(Type.Boolean()),
};

/** `provider` with `smtp` or `providerConfig`; the older flat body puts the SMTP fields at the top. */
export const PutSettings = Type.Object(
  {
    provider: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    smtp: Type.Optional(Type.Object(SmtpFields, { additionalProperties: false })),
    providerConfig: Type.Optional(
      Type.Record(Type.String({ maxLength: 64 }), Type.Union([Type.String({ maxLength: 2000 }), Type.Null()]), {
        maxProperties: 32,
      }),
    ),
    from: Type.Optional(NullableText(254)),
    fromName: Type.Optional(NullableText(200)),
    replyTo: Type.Optional(NullableText(254)),
    ...SmtpFields,
  },
  { additionalProperties: false },
);

export const TestBody = Type.Object(
  { to: Type.String({ format: 'email', maxLength: 254 }) },
  { additionalProperties: false },
);

export const LogQuery = Type.Object(
  {
    status: Type.Optional(Type.Union(['queued', 'retrying', 'sent', 'failed'].map((s) => Type.Literal(s)))),
    kind: Type.Optional(Type.String({ maxLength: 64 })),
    recipient: Type.Optional(Type.String({ maxLength: 254 })),
    websiteId: Type.Optional(Type.String({ format: 'uuid' })),
    q: Type.Optional(Type.String({ maxLength: 200 })),
    since: Type.Optional(Type.String({ format: 'date-time' })),
    until: Type.Optional(Type.String({ format: 'date-time' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
  },
  { additionalProperties: false },
);

export const DeleteBody = Type.Object(
  { ids: Type.Array(Type.String({ format: 'uuid' }), { minItems: 1, maxItems: 500, uniqueItems: true }) },
  { additionalProperties: false },
);

const TemplateFields = {
  key: Type.String({ minLength: 1, maxLength: 64 }),
  name: Type.String({ minLength: 1, maxLength: 200 }),
  subject: Type.String({ minLength: 1, maxLength: 500 }),
  // A content node tree (as the snippet editor stores it); checked by the content plugin's rules.
  html: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  text: Type.String({ maxLength: 100_000 }),
};

export const CreateTemplate = Type.Object(
  { ...TemplateFields, html: Type.Optional(TemplateFields.html) },
  { additionalProperties: false },
);

export const PatchTemplate = Type.Partial(Type.Object(TemplateFields), { additionalProperties: false });

export const RenderBody = Type.Object(
  {
    variables: Type.Optional(
      Type.Record(Type.String({ pattern: '^[a-zA-Z][a-zA-Z0-9_]{0,63}$' }), Type.String({ maxLength: 10_000 }), {
        maxProperties: 100,
      }),
    ),
  },
  { additionalProperties: false },
);
