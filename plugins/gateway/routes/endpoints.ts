import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import { GATEWAY_MANAGE } from '../permissions.ts';
import type { GatewayServices } from '../services/index.ts';
import { EndpointCreate, EndpointPatch, EndpointView, endpointView } from '../services/endpoint-service.ts';
import { RouteCreate, RouteView, routeView } from '../services/route-service.ts';
import { IdParams, NoContent } from './schemas.ts';

const tags = ['gateway'];
const config = { permission: GATEWAY_MANAGE };

/** /api/v1/gateway/endpoints...: endpoints, their routes and OpenAPI import (gateway:manage). Credentials are never read back. */
export async function endpointRoutes(app: App, { endpoints, routes }: GatewayServices): Promise<void> {
  app.get(
    '/api/v1/gateway/endpoints',
    {
      config,
      schema: {
        tags,
        summary: 'The stored upstream endpoints (credentials only as { set })',
        response: { 200: Type.Object({ items: Type.Array(EndpointView) }) },
      },
    },
    async () => ({
      items: (await endpoints.list()).map(endpointView),
    }),
  );

  app.post(
    '/api/v1/gateway/endpoints',
    { config, schema: { tags, body: EndpointCreate, response: { 201: EndpointView } } },
    async (request, reply) => reply.code(201).send(endpointView(await endpoints.create(request.body))),
  );

  app.get(
    '/api/v1/gateway/endpoints/:id',
    { config, schema: { tags, params: IdParams, response: { 200: EndpointView } } },
    async (request) => endpointView(await endpoints.get(request.params.id)),
  );

  app.patch(
    '/api/v1/gateway/endpoints/:id',
    { config, schema: { tags, params: IdParams, body: EndpointPatch, response: { 200: EndpointView } } },
    async (request) => endpointView(await endpoints.update(request.params.id, request.body)),
  );

  app.delete(
    '/api/v1/gateway/endpoints/:id',
    { config, schema: { tags, params: IdParams, response: { 204: NoContent } } },
    async (request, reply) => {
      await endpoints.delete(request.params.id);
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/v1/gateway/endpoints/:id/routes',
    {
      config,
      schema: {
        tags,
        summary: "An endpoint's routes, with the path parameters of each template",
        params: IdParams,
        response: { 200: Type.Object({ items: Type.Array(RouteView) }) },
      },
    },
    async (request) => ({
      items: (await routes.list(request.params.id)).map(routeView),
    }),
  );

  app.post(
    '/api/v1/gateway/endpoints/:id/routes',
    { config, schema: { tags, params: IdParams, body: RouteCreate, response: { 201: RouteView } } },
    async (request, reply) => reply.code(201).send(routeView(await routes.create(request.params.id, request.body))),
  );

  app.post(
    '/api/v1/gateway/endpoints/:id/import-openapi',
    {
      config,
      bodyLimit: 12 * 1024 * 1024,
      schema: {
        tags,
        params: IdParams,
        body: Type.Object(
          {
            spec: Type.String({
              minLength: 1,
              maxLength: 10 * 1024 * 1024,
              description: 'the OpenAPI 3.0/3.1 or Swagger 2.0 document, JSON or YAML text',
            }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            format: Type.String(),
            title: Type.Union([Type.String(), Type.Null()]),
            servers: Type.Array(Type.String()),
            created: Type.Array(RouteView),
            skipped: Type.Array(Type.Object({ method: Type.String(), path: Type.String() })),
          }),
        },
      },
    },
    async (request) => {
      const result = await routes.importOpenApi(request.params.id, request.body.spec);
      return { ...result, created: result.created.map(routeView) };
    },
  );
}
