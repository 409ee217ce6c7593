import { Badge, Group, PasswordInput, Select, Stack, TextInput } from '@mantine/core';
import type { AuthInput } from './model.ts';

export const AUTH_TYPES = [
  { value: 'none', label: 'No authentication' },
  { value: 'apiKeyHeader', label: 'API key in a header' },
  { value: 'apiKeyQuery', label: 'API key in the query string' },
  { value: 'bearer', label: 'Bearer token' },
  { value: 'basic', label: 'HTTP Basic (user name and password)' },
  { value: 'oauth2ClientCredentials', label: 'OAuth 2 client credentials' },
] as const;

export type AuthType = (typeof AUTH_TYPES)[number]['value'];

/** The one secret of each auth type: written, never read back (the API answers `{ set: true }`). */
export const SECRET_FIELD: Record<AuthType, { name: string; label: string } | null> = {
  none: null,
  apiKeyHeader: { name: 'key', label: 'API key' },
  apiKeyQuery: { name: 'key', label: 'API key' },
  bearer: { name: 'token', label: 'Token' },
  basic: { name: 'password', label: 'Password' },
  oauth2ClientCredentials: { name: 'clientSecret', label: 'Client secret' },
};

/** The non-secret settings of each auth type. */
const SETTINGS: Record<AuthType, { name: string; label: string; required?: boolean; placeholder?: string }[]> = {
  none: [],
  apiKeyHeader: [{ name: 'headerName', label: 'Header name', placeholder: 'X-Api-Key' }],
  apiKeyQuery: [{ name: 'paramName', label: 'Query parameter name', placeholder: 'api_key' }],
  bearer: [],
  basic: [{ name: 'username', label: 'User name' }],
  oauth2ClientCredentials: [
    { name: 'tokenUrl', label: 'Token URL', placeholder: 'https://auth.example.com/oauth/token' },
    { name: 'clientId', label: 'Client id', required: true },
    { name: 'scope', label: 'Scope' },
    { name: 'audience', label: 'Audience' },
  ],
};

export interface AuthState {
  type: AuthType;
  settings: Record<string, string>;
  /** A new secret; empty keeps the stored one (or sets none). */
  secret: string;
}

/** The state from what the API reads back (or a preset's auth), the secret never among it. */
export function authStateOf(auth: Record<string, unknown> | undefined): AuthState {
  const type = (AUTH_TYPES.some((t) => t.value === auth?.type) ? auth?.type : 'none') as AuthType;
  const settings: Record<string, string> = {};
  for (const s of SETTINGS[type]) if (typeof auth?.[s.name] === 'string') settings[s.name] = auth[s.name] as string;
  return { type, settings, secret: '' };
}

/** The `auth` body of a create or PATCH: settings given, the secret only when one was typed. */
export function authBody(state: AuthState): AuthInput {
  const body: Record<string, string> = { type: state.type };
  for (const s of SETTINGS[state.type])
    if (state.settings[s.name]?.trim()) body[s.name] = state.settings[s.name].trim();
  const secret = SECRET_FIELD[state.type];
  if (secret && state.secret) body[secret.name] = state.secret;
  // Built per type from SETTINGS and SECRET_FIELD; the API checks the union (400 naming the field).
  return body as unknown as AuthInput;
}

/**
 * The auth type, its settings and its write-only secret. `stored` says whether a secret is stored
 * already (edit): then the field replaces it, and leaving it empty keeps it.
 */
export function AuthFields(props: { value: AuthState; onChange: (v: AuthState) => void; stored?: boolean }) {
  const { value, onChange } = props;
  const secret = SECRET_FIELD[value.type];
  return (
    <Stack gap="sm">
      <Select
        label="Authentication"
        data={AUTH_TYPES.map((t) => ({ value: t.value, label: t.label }))}
        value={value.type}
        onChange={(t) => t && onChange({ type: t as AuthType, settings: {}, secret: '' })}
        allowDeselect={false}
      />
      {SETTINGS[value.type].map((s) => (
        <TextInput
          key={s.name}
          label={s.label}
          placeholder={s.placeholder}
          required={s.required}
          value={value.settings[s.name] ?? ''}
          onChange={(e) => onChange({ ...value, settings: { ...value.settings, [s.name]: e.currentTarget.value } })}
        />
      ))}
      {secret && (
        <Stack gap={4}>
          {props.stored !== undefined && (
            <Group gap="xs">
              <span style={{ fontSize: 'var(--mantine-font-size-sm)' }}>{secret.label}:</span>
              <Badge color={props.stored ? 'green' : 'gray'} variant="light">
                {props.stored ? 'set' : 'not set'}
              </Badge>
            </Group>
          )}
          <PasswordInput
            label={props.stored ? `Replace the ${secret.label.toLowerCase()}` : secret.label}
            description={
              props.stored
                ? 'Stored encrypted and never shown again. Leave empty to keep the stored one.'
                : 'Stored encrypted and never shown again.'
            }
            autoComplete="new-password"
            value={value.secret}
            onChange={(e) => onChange({ ...value, secret: e.currentTarget.value })}
          />
        </Stack>
      )}
    </Stack>
  );
}
