const HTTP_ERROR = Symbol.for('cms.HttpError');

/**
 * One error family for every route. Routes and services throw these; the kernel's error
 * handler turns them into the documented body `{ statusCode, error, code, message, field?, requestId }`.
 */
export class HttpError extends Error {
  readonly [HTTP_ERROR] = true;
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/**
 * True for an HttpError, also one made by a second copy of this module: under mocha, test files are
 * loaded through `require` while discovered plugins are `import`ed, so `instanceof` can miss.
 */
export function isHttpError(err: unknown): err is HttpError {
  return typeof err === 'object' && err !== null && (err as { [HTTP_ERROR]?: unknown })[HTTP_ERROR] === true;
}

export const badRequest = (message: string, field?: string, code = 'VALIDATION_FAILED') =>
  new HttpError(400, code, message, field);
export const unauthorized = (message = 'Authentication required', code = 'UNAUTHENTICATED') =>
  new HttpError(401, code, message);
export const forbidden = (message = 'Permission denied', code = 'FORBIDDEN') => new HttpError(403, code, message);
export const notFound = (message = 'Not found', code = 'NOT_FOUND') => new HttpError(404, code, message);
export const conflict = (message: string, code = 'CONFLICT', field?: string) =>
  new HttpError(409, code, message, field);
export const locked = (message: string, code = 'LOCKED') => new HttpError(423, code, message);
export const tooManyRequests = (message: string, retryAfterSeconds: number, code = 'RATE_LIMITED') =>
  new HttpError(429, code, message, undefined, { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
export const unavailable = (message: string, code = 'UNAVAILABLE') => new HttpError(503, code, message);

/** Postgres unique_violation: lets stores translate a constraint error into a 409 naming the field. */
export function isUniqueViolation(err: unknown): err is { code: string; constraint?: string } {
  return typeof err === 'object' && err !== null && (err as { code?: string }).code === '23505';
}

// Connection-level failures and PostgreSQL's "cannot serve now" classes: the database is down, restarting,
// out of connections, or this process's pool is exhausted. None is the client's fault, and a retry helps.
const UNAVAILABLE_NET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'EAI_AGAIN',
]);
const UNAVAILABLE_SQLSTATES = new Set([
  '53300',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

/** True when an error means the database cannot serve right now (answer 503 with Retry-After). */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { name, code, message } = err as { name?: string; code?: string; message?: string };
  if (name === 'KnexTimeoutError') return true; // "Timeout acquiring a connection. The pool is probably full."
  if (code && (UNAVAILABLE_NET_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code))) return true;
  return (
    typeof message === 'string' &&
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|^timeout expired$/i.test(message)
  );
}
