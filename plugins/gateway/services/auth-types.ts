import { Type, type Static } from '@sinclair/typebox';

/** Header and parameter names an API key may travel in (RFC 7230 token characters). */
const Name = Type.String({ minLength: 1, maxLength: 100, pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$" });
const Secret = Type.String({ minLength: 1, maxLength: 4000 });
const Url = Type.String({ minLength: 8, maxLength: 2000, pattern: '^https?://' });

/** How the gateway authenticates to an upstream, as written by an administrator (secrets in clear, once). */
export const AuthInput = Type.Union([
  Type.Object({ type: Type.Literal('none') }, { additionalProperties: false }),
  Type.Object(
    { type: Type.Literal('apiKeyHeader'), headerName: Type.Optional(Name), key: Type.Optional(Secret) },
    { additionalProperties: false },
  ),
  Type.Object(
    { type: Type.Literal('apiKeyQuery'), paramName: Type.Optional(Name), key: Type.Optional(Secret) },
    { additionalProperties: false },
  ),
  Type.Object({ type: Type.Literal('bearer'), token: Type.Optional(Secret) }, { additionalProperties: false }),
  Type.Object(
    {
      type: Type.Literal('basic'),
      username: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^[^:]*$' })),
      password: Type.Optional(Secret),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      type: Type.Literal('oauth2ClientCredentials'),
      tokenUrl: Type.Optional(Url),
      clientId: Type.String({ minLength: 1, maxLength: 500 }),
      clientSecret: Type.Optional(Secret),
      scope: Type.Optional(Type.String({ maxLength: 1000 })),
      audience: Type.Optional(Type.String({ maxLength: 1000 })),
      clientAuth: Type.Optional(
        Type.Union([Type.Literal('basic'), Type.Literal('body')], {
          description: 'client credentials in HTTP Basic (default) or in the form body',
        }),
      ),
    },
    { additionalProperties: false },
  ),
]);
export type AuthInput = Static<typeof AuthInput>;
export type AuthType = AuthInput['type'];

export const AUTH_TYPES: readonly AuthType[] = [
  'none',
  'apiKeyHeader',
  'apiKeyQuery',
  'bearer',
  'basic',
  'oauth2ClientCredentials',
];

/** The one secret each auth type carries, by field name. */
export const SECRET_FIELD: Record<AuthType, string | undefined> = {
  none: undefined,
  apiKeyHeader: 'key',
  apiKeyQuery: 'key',
  bearer: 'token',
  basic: 'password',
  oauth2ClientCredentials: 'clientSecret',
};

/** Settings each type cannot do without (checked after a preset filled in its part). */
export const REQUIRED_SETTINGS: Record<AuthType, readonly string[]> = {
  none: [],
  apiKeyHeader: ['headerName'],
  apiKeyQuery: ['paramName'],
  bearer: [],
  basic: ['username'],
  oauth2ClientCredentials: ['tokenUrl', 'clientId'],
};

/** The read form: non-secret settings as stored, the secret field replaced by `{ set }`. */
export const AuthRead = Type.Object(
  {
    type: Type.Union(AUTH_TYPES.map((t) => Type.Literal(t))),
    headerName: Type.Optional(Type.String()),
    paramName: Type.Optional(Type.String()),
    username: Type.Optional(Type.String()),
    tokenUrl: Type.Optional(Type.String()),
    clientId: Type.Optional(Type.String()),
    scope: Type.Optional(Type.String()),
    audience: Type.Optional(Type.String()),
    clientAuth: Type.Optional(Type.String()),
    key: Type.Optional(Type.Object({ set: Type.Boolean() })),
    token: Type.Optional(Type.Object({ set: Type.Boolean() })),
    password: Type.Optional(Type.Object({ set: Type.Boolean() })),
    clientSecret: Type.Optional(Type.Object({ set: Type.Boolean() })),
  },
  { additionalProperties: false },
);
export type AuthRead = Static<typeof AuthRead>;

/** Splits an input into what is stored in clear and the one secret to seal. */
export function splitAuth(input: AuthInput): {
  type: AuthType;
  config: Record<string, string>;
  secret: string | undefined;
} {
  const field = SECRET_FIELD[input.type];
  const config: Record<string, string> = {};
  let secret: string | undefined;
  for (const [k, v] of Object.entries(input)) {
    if (k === 'type' || typeof v !== 'string') continue;
    if (k === field) secret = v;
    else config[k] = v;
  }
  return { type: input.type, config, secret };
}

export function redactedAuth(type: AuthType, config: Record<string, string>, hasSecret: boolean): AuthRead {
  const field = SECRET_FIELD[type];
  return { type, ...config, ...(field ? { [field]: { set: hasSecret } } : {}) } as AuthRead;
}
