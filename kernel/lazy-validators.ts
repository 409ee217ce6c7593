/** An Ajv validation function, as far as this module touches it. */
type Validator = ((...args: unknown[]) => unknown) & { errors?: unknown; schemaEnv?: unknown };

/**
 * Makes Ajv compile each route schema when the route first validates a request instead of when the
 * route is registered. Compiling every schema of every plugin was the largest single cost of a start
 * (about a sixth of its CPU time, measured with `--cpu-prof`), paid even for routes a process never
 * serves. Validation itself is unchanged: the first call compiles, and `errors` and `schemaEnv` (which
 * Fastify reads to let Ajv coerce a root value in place) are those of the compiled function. A schema
 * with an `$id` is compiled at once, as Ajv stores it under that id. What moves is when a schema Ajv
 * cannot compile shows itself: at the route's first request (a 500 with the reason in the log) instead
 * of at start-up; `test/e2e/bad-input.test.ts` calls every route, so a test still fails on it.
 */
export function compileSchemasOnFirstUse<F extends object>(ajv: { compile(schema: object): F }): void {
  const compileNow = ajv.compile.bind(ajv) as unknown as (schema: object) => Validator;
  ajv.compile = (schema) => {
    if (typeof schema === 'object' && schema !== null && '$id' in schema) return compileNow(schema) as unknown as F;
    let compiled: Validator | undefined;
    const get = () => (compiled ??= compileNow(schema));
    const validate = (...args: unknown[]) => get()(...args);
    Object.defineProperty(validate, 'errors', { get: () => compiled?.errors, configurable: true });
    Object.defineProperty(validate, 'schemaEnv', { get: () => get().schemaEnv, configurable: true });
    return validate as unknown as F;
  };
}
