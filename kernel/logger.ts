import { hostname } from 'node:os';
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';

export type Logger = PinoLogger;

/**
 * Where secrets can sit in what the code logs: headers of a logged request, and fields named like a
 * credential at any of the first levels of a logged object (a body, a settings record, a config).
 * pino's paths name one level per `*`, hence the nesting.
 */
const SECRET_FIELDS = [
  'password',
  'newPassword',
  'currentPassword',
  'secret',
  'clientSecret',
  'client_secret',
  'token',
  'accessToken',
  'refreshToken',
  'apiKey',
  'pass',
  'authorization',
  'cookie',
  'mfaToken',
  'smtpPassword',
  'serverToken',
];

const REDACT_PATHS = [
  'req.headers.cookie',
  'req.headers.authorization',
  'req.headers["x-cms-key"]',
  'headers.authorization',
  'headers.cookie',
  'headers["x-cms-key"]',
  ...SECRET_FIELDS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`]),
];

export interface LoggerOptions {
  /** The process the lines come from (`core-api`, `gateway`, ...), a field of every line. */
  service?: string;
  /** Where the lines go; standard output by default. */
  destination?: DestinationStream;
}

/** The process logger. Secrets are redacted by path so a stray log call cannot leak them. */
export function createLogger(level: string, options: LoggerOptions = {}): Logger {
  const settings = {
    level,
    ...(options.service ? { base: { pid: process.pid, hostname: hostname(), service: options.service } } : {}),
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
