import { Type } from '@sinclair/typebox';
import { badRequest, isHttpError, notFound, type App } from '../../../kernel/index.ts';
import { GATEWAY_MANAGE } from '../permissions.ts';
import type { GatewayAnswer } from '../ports.ts';
import type { GatewayServices } from '../services/index.ts';
import { applyResultFilter } from '../services/result-filter.ts';
import { RoutePatch, RouteView, parseJson, routeView } from '../services/route-service.ts';
import { AnswerView, CallBody, IdParams, NoContent } from './schemas.ts';

const tags = ['gateway'];
const config = { permission: GATEWAY_MANAGE };
const TEST_BODY_BYTES = 256 * 1024;

const FilterSchema = Type.Object(
  {
    path: Type.Optional(Type.String({ maxLength: 500 })),
    pick: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100 })),
    rename: Type.Optional(
      Type.Record(Type.String({ maxLength: 200 }), Type.String({ maxLength: 200 }), { maxProperties: 100 }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  },
  { additionalProperties: false },
);

/** JSON when the answer is JSON, else its text. */
function answerBody(answer: GatewayAnswer): unknown {
  const json = /json/i.test(answer.headers['content-type'] ?? '') ? parseJson(answer) : undefined;
  return json !== undefined ? json : answer.body.toString('utf8');
}

/** /api/v1/gateway/routes/:id... and preview-resolve (gateway:manage). */
export async function routeRoutes(app: App, { routes, gatewayRoutes }: GatewayServices): Promise<void> {
  app.patch(
    '/api/v1/gateway/routes/:id',
    { config, schema: { tags, params: IdParams, body: RoutePatch, response: { 200: RouteView } } },
    async (request) => routeView(await routes.update(request.params.id, request.body)),
  );

  app.delete(
    '/api/v1/gateway/routes/:id',
    { config, schema: { tags, params: IdParams, response: { 204: NoContent } } },
    async (request, reply) => {
      await routes.delete(request.params.id);
      return reply.code(204).send();
    },
  );

  // The raw upstream answer, as received: status, headers and the body as text (base64 when it is not UTF-8), capped.
  app.post(
    '/api/v1/gateway/routes/:id/test',
    {
      config,
      schema: {
        tags,
        params: IdParams,
        body: Type.Optional(CallBody),
        response: {
          200: Type.Object({
            status: Type.Integer(),
            headers: Type.Record(Type.String(), Type.String()),
            body: Type.String(),
            bodyEncoding: Type.Union([Type.Literal('utf8'), Type.Literal('base64')]),
            truncated: Type.Boolean(),
            durationMs: Type.Integer(),
          }),
        },
      },
    },
    async (request) => {
      const started = performance.now();
      const { answer } = await routes.call(request.params.id, request.body ?? {});
      const body = answer.body.subarray(0, TEST_BODY_BYTES);
      const text = body.toString('utf8');
      const isText = !text.includes('\uFFFD');
      return {
        status: answer.status,
        headers: answer.headers,
        body: isText ? text : body.toString('base64'),
        bodyEncoding: isText ? ('utf8' as const) : ('base64' as const),
        truncated: answer.truncated || answer.body.length > TEST_BODY_BYTES,
        durationMs: Math.round(performance.now() - started),
      };
    },
  );

  app.post(
    '/api/v1/gateway/routes/:id/execute',
    { config, schema: { tags, params: IdParams, body: Type.Optional(CallBody), response: { 200: AnswerView } } },
    async (request) => {
      const { answer } = await routes.call(request.params.id, request.body ?? {});
      return { status: answer.status, headers: answer.headers, body: answerBody(answer), truncated: answer.truncated };
    },
  );

  const SchemaView = Type.Object({
    routeId: Type.String(),
    schema: Type.Unknown(),
    sample: Type.Unknown(),
    source: Type.Union([Type.String(), Type.Null()]),
    updatedAt: Type.Union([Type.String(), Type.Null()]),
  });
  const schemaView = (r: Awaited<ReturnType<typeof routes.get>>) => ({
    routeId: r.id,
    schema: r.responseSchema,
    sample: r.sample,
    source: r.schemaSource,
    updatedAt: r.schemaUpdatedAt,
  });

  app.get(
    '/api/v1/gateway/routes/:id/schema',
    {
      config,
      schema: {
        tags,
        summary: "A route's response schema and sample (inferred from a live answer or imported from OpenAPI)",
        params: IdParams,
        response: { 200: SchemaView },
      },
    },
    async (request) => schemaView(await routes.get(request.params.id)),
  );

  app.post(
    '/api/v1/gateway/routes/:id/refresh-schema',
    {
      config,
      schema: {
        tags,
        summary: 'Calls the route live and stores the schema and sample inferred from its JSON answer',
        params: IdParams,
        body: Type.Optional(CallBody),
        response: { 200: SchemaView },
      },
    },
    async (request) => schemaView(await routes.refreshSchema(request.params.id, request.body ?? {})),
  );

  // What a binding would show, before the page is saved: the binding picker's live preview.
  app.post(
    '/api/v1/gateway/preview-resolve',
    {
      config,
      schema: {
        tags,
        summary:
          'What a binding would answer a site, before the page is saved: the route called live, the result filter applied',
        body: Type.Object(
          {
            endpointId: Type.String({ minLength: 1, maxLength: 100 }),
            routeId: Type.String({ minLength: 1, maxLength: 100 }),
            parameters: Type.Optional(
              Type.Object(
                {
                  path: Type.Optional(
                    Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 2000 }), {
                      maxProperties: 64,
                    }),
                  ),
                  query: Type.Optional(
                    Type.Record(Type.String({ maxLength: 200 }), Type.String({ maxLength: 2000 }), {
                      maxProperties: 100,
                    }),
                  ),
                },
                { additionalProperties: false },
              ),
            ),
            resultFilter: Type.Optional(Type.Union([FilterSchema, Type.Null()])),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ status: Type.Integer(), data: Type.Unknown(), truncated: Type.Boolean() }) },
      },
    },
    async (request) => {
      const { endpointId, routeId, parameters, resultFilter } = request.body;
      if (!(await gatewayRoutes.findRoute(endpointId, routeId)))
        throw notFound('No such route of this endpoint', 'GATEWAY_ROUTE_NOT_FOUND');
      const answer = await gatewayRoutes
        .callRoute(endpointId, routeId, { params: parameters?.path, query: parameters?.query })
        .catch((err: unknown) => {
          // The call names a path parameter `params.<name>`; this body holds it at `parameters.path.<name>`.
          if (isHttpError(err) && err.field?.startsWith('params.'))
            throw badRequest(err.message, `parameters.path.${err.field.slice('params.'.length)}`, err.code);
          throw err;
        });
      const body = answerBody(answer);
      return {
        status: answer.status,
        data: typeof body === 'string' ? body : applyResultFilter(body, resultFilter ?? null),
        truncated: answer.truncated,
      };
    },
  );
}
