import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import './formats.ts';

/** Which process this is: one of the spec's three services, or all of them behind one port. */
export type ServiceName = 'core-api' | 'asset-processor' | 'gateway';
export const SERVICE_NAMES: ServiceName[] = ['core-api', 'asset-processor', 'gateway'];
export const SERVICE_PORTS: Record<ServiceName | 'all', number> = {
  all: 3000,
  'core-api': 3003,
  'asset-processor': 3002,
  gateway: 3001,
};

const Flag = Type.Union([Type.Literal('0'), Type.Literal('1'), Type.Literal('true'), Type.Literal('false')], {
  default: '0',
});

/** Environment variables the kernel reads. Plugins add their own slice (manifest `config`). */
export const KernelConfigSchema = Type.Object({
  NODE_ENV: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')], {
    default: 'development',
  }),
  PORT: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  HOST: Type.String({ default: '0.0.0.0' }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  DATABASE_POOL_MAX: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  CMS_DATA_DIR: Type.String({ default: 'data', minLength: 1 }),
  EMBEDDED_PG_PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 54329 }),
  CMS_DISABLED_PLUGINS: Type.String({ default: '' }),
  CMS_ADMIN_EMAIL: Type.Optional(Type.String({ format: 'email' })),
  CMS_ADMIN_PASSWORD: Type.Optional(Type.String({ minLength: 1 })),
  TRUST_PROXY: Flag,
  TOTP_ENCRYPTION_KEY: Type.Optional(Type.String({ minLength: 1 })),
  SESSION_TTL_HOURS: Type.Integer({ minimum: 1, maximum: 24 * 90, default: 168 }),
  LOGIN_LOCKOUT_MAX_FAILURES: Type.Integer({ minimum: 1, maximum: 1000, default: 5 }),
  LOGIN_LOCKOUT_WINDOW_SECONDS: Type.Integer({ minimum: 1, maximum: 86400, default: 900 }),
  AUDIT_RETENTION_DAYS: Type.Integer({ minimum: 0, maximum: 36500, default: 365 }),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://' })),
  MAIL_FROM: Type.String({ default: 'cms@localhost' }),
  PUBLIC_BASE_URL: Type.String({ default: 'http://localhost:3000', pattern: '^https?://' }),
});

type KernelEnv = Static<typeof KernelConfigSchema>;

/** Parsed, validated configuration: the kernel's fields plus every loaded plugin's slice. */
export interface Config extends Omit<KernelEnv, 'TRUST_PROXY'> {
  TRUST_PROXY: boolean;
  production: boolean;
  /** Plugin slices, keyed by plugin id. */
  plugins: Record<string, Record<string, unknown>>;
}

export class ConfigError extends Error {}

/** Converts env strings to the schema's types, applies defaults and names the first bad variable. */
export function parseEnvSlice<T extends TProperties>(
  schema: TObject<T>,
  env: Record<string, string | undefined>,
): Static<TObject<T>> {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const converted = Value.Default(schema, Value.Convert(schema, raw)) as Record<string, unknown>;
  const first = Value.Errors(schema, converted).First();
  if (first) {
    const name = first.path.replace(/^\//, '').split('/')[0] || 'environment';
    const shown = name in raw ? ` (got "${String(raw[name])}")` : '';
    throw new ConfigError(`Invalid environment variable ${name}${shown}: ${first.message}`);
  }
  return converted as Static<TObject<T>>;
}

export const isTrue = (v: string | undefined) => v === '1' || v === 'true';

export function loadKernelConfig(env: Record<string, string | undefined>): Config {
  const parsed = parseEnvSlice(KernelConfigSchema, env);
  return {
    ...parsed,
    TRUST_PROXY: isTrue(parsed.TRUST_PROXY),
    production: parsed.NODE_ENV === 'production',
    plugins: {},
  };
}
