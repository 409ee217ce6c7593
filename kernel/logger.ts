import { hostname } from 'node:os';
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';

export type Logger = PinoLogger;

/** Keys whose values are credentials wherever they sit in a logged object (compared in lower case). */
const SECRET_KEYS = new Set(
  [
    'password',
    'newPassword',
    'currentPassword',
    'pass',
    'secret',
    'clientSecret',
    'client_secret',
    'token',
    'accessToken',
    'access_token',
    'refreshToken',
    'refresh_token',
    'idToken',
    'id_token',
    'mfaToken',
    'apiKey',
    'serverToken',
    'authorization',
    'cookie',
    'set-cookie',
    'x-cms-key',
  ].map((k) => k.toLowerCase()),
);

const CENSOR = '[redacted]';
/** Levels below the logged object that are searched: `password`, `body.password`, `smtp.auth.pass`. */
const NESTED_LEVELS = 2;

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/**
 * The logged object with every credential-named value replaced, at its own level and two below; the
 * caller's object is never changed (a changed level is copied). A walk over the few keys a log call
 * carries costs far less than pino's wildcard redaction paths (bench:logs).
 */
export function redactSecrets(value: Record<string, unknown>, depth = 0): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const v = value[key];
    let next = v;
    if (SECRET_KEYS.has(key.toLowerCase())) {
      if (v !== undefined && v !== null && v !== '') next = CENSOR;
    } else if (depth < NESTED_LEVELS && isPlainObject(v)) next = redactSecrets(v, depth + 1);
    if (next !== v) {
      copy ??= { ...value };
      copy[key] = next;
    }
  }
  return copy ?? value;
}

export interface LoggerOptions {
  /** The process the lines come from (`core-api`, `gateway`, ...), a field of every line. */
  service?: string;
  /** Where the lines go; standard output by default. */
  destination?: DestinationStream;
}

/**
 * The process logger. Secrets are redacted so a stray log call cannot leak them: fields named like a
 * credential by `redactSecrets`, and the credential headers of a request logged as `req` (pino's
 * request serializer builds its `headers` after the object is walked) by path.
 */
export function createLogger(level: string, options: LoggerOptions = {}): Logger {
  const settings = {
    level,
    ...(options.service ? { base: { pid: process.pid, hostname: hostname(), service: options.service } } : {}),
    formatters: { log: (object: Record<string, unknown>) => redactSecrets(object) },
    redact: {
      paths: ['req.headers.cookie', 'req.headers.authorization', 'req.headers["x-cms-key"]'],
      censor: CENSOR,
    },
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
