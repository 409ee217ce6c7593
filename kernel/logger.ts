import { pino, type Logger as PinoLogger } from 'pino';

export type Logger = PinoLogger;

/** The process logger. Secrets are redacted by path so a stray log call cannot leak them. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: [
        'req.headers.cookie',
        'req.headers.authorization',
        'req.headers["x-cms-key"]',
        '*.password',
        '*.newPassword',
        '*.secret',
        '*.token',
      ],
      censor: '[redacted]',
    },
  });
}
