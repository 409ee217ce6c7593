import type { FastifyBaseLogger } from 'fastify';

type Bindings = Record<string, unknown>;
type LogFn = (...args: unknown[]) => void;

/**
 * A request's logger (`request.log`, bound to its `reqId`) made on its first use: pino's `child()` per
 * request serialises the bindings and copies the level state, about 4 µs of every request
 * (bench:docs), and most requests never log.
 */
class RequestLogger {
  #made: FastifyBaseLogger | undefined;
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: object;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: object) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get #logger(): FastifyBaseLogger {
    this.#made ??= this.#parent.child(this.#bindings, this.#options);
    return this.#made;
  }
  get level(): string {
    return this.#logger.level;
  }
  set level(level: string) {
    this.#logger.level = level;
  }
  fatal(...args: unknown[]) {
    (this.#logger.fatal as LogFn)(...args);
  }
  error(...args: unknown[]) {
    (this.#logger.error as LogFn)(...args);
  }
  warn(...args: unknown[]) {
    (this.#logger.warn as LogFn)(...args);
  }
  info(...args: unknown[]) {
    (this.#logger.info as LogFn)(...args);
  }
  debug(...args: unknown[]) {
    (this.#logger.debug as LogFn)(...args);
  }
  trace(...args: unknown[]) {
    (this.#logger.trace as LogFn)(...args);
  }
  silent(...args: unknown[]) {
    (this.#logger.silent as LogFn)(...args);
  }
  child(bindings: Bindings, options?: object) {
    return this.#logger.child(bindings, options);
  }
  isLevelEnabled(level: string): boolean {
    return (this.#logger as unknown as { isLevelEnabled(l: string): boolean }).isLevelEnabled(level);
  }
  bindings(): Bindings {
    return (this.#logger as unknown as { bindings(): Bindings }).bindings();
  }
}

/** Fastify's `childLoggerFactory`: the request logger, made when something logs. */
export function lazyRequestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: object): FastifyBaseLogger {
  return new RequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}
