import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
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

/**
 * An on/off environment variable for plugin config slices: accepts 1/0/true/false and arrives as a
 * boolean in `pluginConfig`.
 */
export const EnvFlag = (defaultValue: boolean, description: string) =>
  Type.Boolean({ default: defaultValue, description });

/** Environment variables the kernel reads. Plugins add their own slice (manifest `config`). */
export const KernelConfigSchema = Type.Object({
  NODE_ENV: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')], {
    default: 'development',
    description: 'production: Secure cookies, generic 5xx messages, secret keys must be set explicitly',
  }),
  PORT: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 65535,
      description: 'listening port; default 3000 all-in-one, else the service port (3003, 3002, 3001)',
    }),
  ),
  HOST: Type.String({ default: '0.0.0.0', description: 'listening address' }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info', description: 'log level' },
  ),
  LOG_DIR: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1000,
      description:
        'folder of the log files (<service>.<n>.log, rotated by size) beside standard output; unset = standard output only (README "System logs")',
    }),
  ),
  LOG_FILE_MAX_MB: Type.Integer({
    minimum: 1,
    maximum: 1024,
    default: 10,
    description: 'size in MB at which a log file is closed and a new one started',
  }),
  LOG_FILE_COUNT: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 10,
    description:
      'closed log files kept per service beside the current one; the oldest is deleted past it (rotation bounds the disk, it is not retention)',
  }),
  DATABASE_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      description: 'PostgreSQL connection string; unset = embedded PostgreSQL under CMS_DATA_DIR',
    }),
  ),
  DATABASE_OWNER_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      description:
        'role that owns the schema and runs migrations; DATABASE_URL is then the application role, which cannot alter the audit log (the embedded default sets up both)',
    }),
  ),
  HEAP_GROWING_PERCENT: Type.Integer({
    minimum: 0,
    maximum: 400,
    default: 100,
    description:
      'a full garbage collection starts once the old generation grew by this percent over what survived the last one (0 = V8 decides); V8 alone leaves too little room over a server heap and collects every few requests',
  }),
  DATABASE_POOL_MAX: Type.Integer({
    minimum: 1,
    maximum: 200,
    default: 10,
    description: 'database connections per process',
  }),
  DATABASE_READ_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      description:
        'a PostgreSQL streaming replica (hot standby) of DATABASE_URL for the public read routes (published data, pages, sitemap, search); staff routes, writes, staff previews, caches and LISTEN stay on DATABASE_URL; unset = every read on DATABASE_URL (README "Public reads from a read replica")',
    }),
  ),
  DATABASE_READ_POOL_MAX: Type.Integer({
    minimum: 1,
    maximum: 200,
    default: 10,
    description: 'replica connections per process (with DATABASE_READ_URL), beside DATABASE_POOL_MAX',
  }),
  CMS_DATA_DIR: Type.String({
    default: 'data',
    minLength: 1,
    description: 'folder of the embedded database and of locally generated keys',
  }),
  EMBEDDED_PG_PORT: Type.Integer({
    minimum: 1,
    maximum: 65535,
    default: 54329,
    description: 'loopback port of the embedded PostgreSQL',
  }),
  CMS_DISABLED_PLUGINS: Type.String({ default: '', description: 'comma-separated ids of plugins not to load' }),
  CMS_PLUGIN_PATH: Type.String({
    default: '',
    description:
      'extra plugin folders outside the project, separated by ":" (each a folder of plugin folders or one plugin folder; their presets/ too)',
  }),
  CMS_ADMIN_EMAIL: Type.Optional(
    Type.String({ format: 'email', description: 'first administrator, created at first start when no user exists' }),
  ),
  CMS_ADMIN_PASSWORD: Type.Optional(
    Type.String({ minLength: 1, description: 'password of the first administrator (never logged)' }),
  ),
  TRUST_PROXY: Type.String({
    default: '0',
    pattern: '^(true|false|[0-9]|[0-9a-fA-F.:/]+(,[0-9a-fA-F.:/]+)*)$',
    description:
      "proxies in front of this process: a hop count (1 = the one reverse proxy; the client address is the X-Forwarded-For entry it appended) or the proxies' addresses/CIDRs, comma-separated; 0 = none",
  }),
  CORS_ALLOWED_ORIGINS: Type.String({
    default: '',
    description:
      'origins (scheme://host[:port], comma-separated) allowed credentialed CORS and state-changing requests with the session cookie, beside PUBLIC_BASE_URL',
  }),
  CORS_ALLOWED_HOSTS: Type.String({
    default: '',
    description:
      'host names (comma-separated; `*.example.com` for subdomains) allowed like CORS_ALLOWED_ORIGINS on any scheme and port',
  }),
  SESSION_TTL_HOURS: Type.Integer({
    minimum: 1,
    maximum: 24 * 90,
    default: 168,
    description: 'session lifetime in hours',
  }),
  JOBS_POLL_MS: Type.Integer({
    minimum: 50,
    maximum: 60_000,
    default: 2_000,
    description:
      'how often an idle job queue looks for due work without a notice (a retry or a scheduled job coming due); a stored job wakes its queue at once',
  }),
  JOBS_SUPERVISE_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 60,
    description:
      'how often one process takes back the jobs of a process that died (after their timeout) and archives finished ones',
  }),
  JOBS_STOP_GRACE_MS: Type.Integer({
    minimum: 0,
    maximum: 120_000,
    default: 10_000,
    description: 'on shutdown, how long running jobs may finish before they are handed back to another process',
  }),
  REDIS_URL: Type.String({
    default: '',
    maxLength: 2000,
    description:
      'Redis for the state every replica shares (pending sign-ins, lockouts, rate-limit counters; redis://host:6379/0); empty: in PostgreSQL',
  }),
  REDIS_KEY_PREFIX: Type.String({
    default: 'cms:',
    maxLength: 100,
    pattern: '^[A-Za-z0-9:_.-]*$',
    description: 'put before every key in Redis, so installations sharing one Redis stay apart',
  }),
  RATE_LIMIT_STORE: Type.Union([Type.Literal('shared'), Type.Literal('memory')], {
    default: 'shared',
    description:
      'where route rate limits count: shared = one count across every replica (PostgreSQL or REDIS_URL); memory = per process, for a single process that wants no store round trip per limited request',
  }),
  AUDIT_RETENTION_DAYS: Type.Integer({
    minimum: 0,
    maximum: 36500,
    default: 365,
    description: 'audit rows older than this are purged at start and daily; 0 keeps all',
  }),
  SANDBOX: EnvFlag(
    false,
    'public sandbox profile: no mail, AI, imports, CDN mirror or outbound HTTP; assets capped; settings of security, single sign-on and data subjects blocked (CONTRIBUTING "Sandbox profile")',
  ),
  METRICS_TOKEN: Type.Optional(
    Type.String({ minLength: 16, description: 'enables GET /metrics, presented as Authorization: Bearer <token>' }),
  ),
  PUBLIC_BASE_URL: Type.String({
    default: 'http://localhost:3000',
    pattern: '^https?://',
    description: 'public address used in links sent by mail',
  }),
});

type KernelEnv = Static<typeof KernelConfigSchema>;

/** Parsed, validated configuration: the kernel's fields plus every loaded plugin's slice. */
export interface Config extends Omit<KernelEnv, 'TRUST_PROXY'> {
  /** Fastify's `trustProxy`: false, a hop count, or the proxies' addresses. */
  TRUST_PROXY: false | number | string[];
  production: boolean;
  /** Plugin slices, keyed by plugin id. */
  plugins: Record<string, Record<string, unknown>>;
}

export class ConfigError extends Error {}

/**
 * Whether a refused value may be quoted back: only numbers, flags and a choice of fixed words. Any
 * free text may be a secret (a token, a key, a URL with a password), so it is never quoted, whether
 * or not its schema says so: a secret added later cannot be forgotten.
 */
function quotable(schema: TSchema | undefined): boolean {
  if (!schema) return false;
  if (['integer', 'number', 'boolean'].includes(schema.type as string)) return true;
  if (schema.const !== undefined) return true;
  const members = (schema as { anyOf?: TSchema[] }).anyOf;
  return Array.isArray(members) && members.length > 0 && members.every((m) => m.const !== undefined);
}

/**
 * Converts env strings to the schema's types, applies defaults and names the first bad variable and
 * the rule it breaks; the value itself only when it cannot be a secret (`quotable`).
 */
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
    const shown = name in raw && quotable(schema.properties[name]) ? ` (got "${String(raw[name]).slice(0, 100)}")` : '';
    throw new ConfigError(`Invalid environment variable ${name}${shown}: ${first.message}`);
  }
  return converted as Static<TObject<T>>;
}

/**
 * `TRUST_PROXY`: `1`/`true` trust exactly one hop, the reverse proxy, so the client address is the
 * X-Forwarded-For entry the proxy appended (the leftmost entries are whatever the client sent); `N` trusts
 * N hops; addresses/CIDRs trust those proxies only.
 */
function trustedProxies(value: string): false | number | string[] {
  if (value === 'false' || value === '0') return false;
  if (value === 'true') return 1;
  if (/^[0-9]$/.test(value)) return Number(value);
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function loadKernelConfig(env: Record<string, string | undefined>): Config {
  const parsed = parseEnvSlice(KernelConfigSchema, env);
  return {
    ...parsed,
    TRUST_PROXY: trustedProxies(parsed.TRUST_PROXY),
    production: parsed.NODE_ENV === 'production',
    plugins: {},
  };
}
