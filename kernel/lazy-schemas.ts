import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

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
    const get = () => {
      compiled ??= compileNow(schema);
      return compiled;
    };
    const validate = (...args: unknown[]) => get()(...args);
    Object.defineProperty(validate, 'errors', { get: () => compiled?.errors, configurable: true });
    Object.defineProperty(validate, 'schemaEnv', { get: () => get().schemaEnv, configurable: true });
    return validate as unknown as F;
  };
}

type Serializer = (data: unknown) => string;
type SerializerCompile = (routeSchema: object) => Serializer;
type SerializerFactory = (externalSchemas: unknown, options: unknown) => SerializerCompile;

/**
 * The response serializer factory Fastify uses by default (fast-json-stringify), taken from Fastify's
 * own dependencies, with each route's serializer built when the route first answers with that status
 * instead of when it is registered (the second largest cost of compiling every plugin's routes at
 * start). The serializer itself is the same function.
 */
export function serializersOnFirstUse(): SerializerFactory {
  const fromFastify = createRequire(require.resolve('fastify'));
  const { SerializerSelector } = fromFastify('@fastify/fast-json-stringify-compiler') as {
    SerializerSelector: () => SerializerFactory;
  };
  const build = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    return (routeSchema) => {
      let serialize: Serializer | undefined;
      return (data) => {
        serialize ??= compile(routeSchema);
        return serialize(data);
      };
    };
  };
}
