import type { Readable } from 'node:stream';
import { type TUnsafe, Type } from '@sinclair/typebox';
import fp from 'fastify-plugin';
import type { App } from './plugin.ts';

/** The id of the shared error body schema; `/openapi.json` names it `components.schemas.ErrorBody`. */
export const ERROR_BODY_ID = 'ErrorBody';

/**
 * The documented error body (`ErrorBody` in http.ts) as a schema. Every property the error handler
 * sends is here: an answer is serialised by its schema, and a property missing from it would never
 * reach the client.
 */
export const ErrorBodySchema = Type.Object(
  {
    statusCode: Type.Integer({ minimum: 400, maximum: 599 }),
    error: Type.String({ description: 'The HTTP reason phrase of the status' }),
    code: Type.String({ description: 'A stable machine-readable code, e.g. `VALIDATION_FAILED`' }),
    message: Type.String(),
    field: Type.Optional(Type.String({ description: 'The input field at fault (dotted path), when one is' })),
    requestId: Type.String({ description: 'The id of the request in the service log' }),
  },
  { $id: ERROR_BODY_ID, description: 'The error body every route answers with on 4xx and 5xx' },
);

const ERROR_ANSWER = { $ref: `${ERROR_BODY_ID}#` };

/**
 * The schema of an answer without a body: a 204, a 304, or a redirect (its `Location` header says
 * where). A `null` schema is how Fastify and `/openapi.json` spell "no content"; the handler sends nothing.
 */
export function emptyAnswer(description: string): TUnsafe<undefined> {
  return Type.Unsafe<undefined>({ type: 'null', description });
}

/**
 * The schema of an answer that is not JSON (HTML, CSS, CSV, XML, a file or a stream): its media type
 * and what it is. The handler sends a string, a buffer or a stream, which Fastify passes through
 * without serialising.
 */
export function nonJsonAnswer(
  mediaType: string,
  description: string,
): { description: string; content: Record<string, { schema: TUnsafe<NonJsonBody> }> } {
  const binary = !/^text\/|json|xml|javascript/.test(mediaType);
  const schema = Type.Unsafe<NonJsonBody>({ type: 'string', ...(binary ? { format: 'binary' } : {}) });
  return { description, content: { [mediaType]: { schema } } };
}

/** What a handler sends as a non-JSON answer. */
type NonJsonBody = string | Buffer | Readable;

/** True when a route's `schema.response` declares a success or redirect answer (a 2xx or 3xx key). */
function declaresAnswer(response: Record<string, unknown> | undefined): boolean {
  return Object.keys(response ?? {}).some((code) => /^[23]/.test(code));
}

/**
 * Until their response schemas land, the routes of these plugins are not refused for lacking one.
 * Temporary: this list goes when their schemas are merged.
 */
export const PLUGINS_AWAITING_ANSWER_SCHEMAS: ReadonlySet<string> = new Set([
  'assets',
  'mail',
  'bundles',
  'data-subject',
  'gateway',
  'object-events',
  'event-delivery',
]);

/**
 * Every route answers 4xx and 5xx with the error body: the kernel adds it to each route's
 * `schema.response` (unless the route declares its own `4xx` or `5xx`), so `/openapi.json` documents
 * it and no plugin repeats it.
 */
export const errorAnswers = fp(
  async (app) => {
    (app as unknown as App).addSchema(ErrorBodySchema);
    app.addHook('onRoute', (route) => {
      const schema = (route.schema ?? {}) as { response?: Record<string, unknown> };
      const response = { ...schema.response };
      response['4xx'] ??= ERROR_ANSWER;
      response['5xx'] ??= ERROR_ANSWER;
      route.schema = { ...schema, response };
    });
  },
  { name: 'kernel-error-answers' },
);

/**
 * Refuses (at start-up) a route of `pluginId` that declares no 2xx or 3xx answer schema, as the
 * access check refuses one without an access declaration: the schema is the contract, the OpenAPI
 * document and the filter that keeps internal columns out of answers. Installed on the plugin's
 * own scope, so it sees exactly that plugin's routes.
 */
export function requireAnswerSchemas(scope: App, pluginId: string): void {
  if (PLUGINS_AWAITING_ANSWER_SCHEMAS.has(pluginId)) return;
  scope.addHook('onRoute', (route) => {
    const response = (route.schema as { response?: Record<string, unknown> } | undefined)?.response;
    if (!declaresAnswer(response)) {
      const methods = Array.isArray(route.method) ? route.method.join(',') : route.method;
      throw new Error(
        `plugin "${pluginId}": route ${methods} ${route.url} declares no answer schema (schema.response with a 2xx or 3xx entry; see emptyAnswer and nonJsonAnswer)`,
      );
    }
  });
}
