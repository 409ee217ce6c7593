import { Type, type Static } from '@sinclair/typebox';
import { HttpError, conflict, inTransaction, isUniqueViolation, notFound, type Db } from '../../../kernel/index.ts';
import { HTTP_METHODS, type Endpoint, ROUTE_PATH_MAX_LENGTH, type Route } from '../model.ts';
import type { GatewayAnswer, GatewayCallInput } from '../ports.ts';
import type { RouteStore } from '../store/route-store.ts';
import type { EndpointService } from './endpoint-service.ts';
import { isUuid } from './endpoint-service.ts';
import { parseOpenApi } from './openapi-import.ts';
import { parseTemplate, templateParams } from './path-template.ts';
import type { RouteCaller } from './route-caller.ts';
import { inferSchema, trimSample } from './schema-inference.ts';

export const Method = Type.Union(HTTP_METHODS.map((m) => Type.Literal(m)));
export const RoutePath = Type.String({
  minLength: 1,
  maxLength: ROUTE_PATH_MAX_LENGTH,
  description: 'template relative to the base URL, e.g. /users/{id}',
});

export const RouteCreate = Type.Object(
  {
    method: Method,
    path: RoutePath,
    name: Type.Optional(Type.String({ maxLength: 200 })),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);
export const RoutePatch = Type.Partial(RouteCreate, { additionalProperties: false });

export const RouteView = Type.Object({
  id: Type.String(),
  endpointId: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  method: Type.String(),
  path: Type.String(),
  pathParams: Type.Array(Type.String()),
  description: Type.Union([Type.String(), Type.Null()]),
  hasSchema: Type.Boolean(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export function routeView(r: Route): Static<typeof RouteView> {
  return {
    id: r.id,
    endpointId: r.endpointId,
    name: r.name,
    method: r.method,
    path: r.path,
    pathParams: templateParams(r.path),
    description: r.description,
    hasSchema: r.responseSchema !== null && r.responseSchema !== undefined,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

const MAX_STORED_SCHEMA = 256 * 1024;
const MAX_STORED_SAMPLE = 64 * 1024;

/** Routes of endpoints: administration, live calls, schemas and OpenAPI import. */
export class RouteService {
  constructor(
    private readonly deps: {
      db: Db;
      routes: RouteStore;
      endpoints: EndpointService;
      caller: RouteCaller;
      changed: (endpointId: string) => void;
    },
  ) {}

  async list(endpointId: string): Promise<Route[]> {
    await this.deps.endpoints.get(endpointId);
    return this.deps.routes.listByEndpoint(endpointId);
  }

  async get(id: string): Promise<Route> {
    const route = isUuid(id) ? await this.deps.routes.findById(id) : undefined;
    if (!route) throw notFound('No such route', 'GATEWAY_ROUTE_NOT_FOUND');
    return route;
  }

  async create(endpointId: string, input: Static<typeof RouteCreate>): Promise<Route> {
    await this.deps.endpoints.get(endpointId);
    parseTemplate(input.path);
    try {
      const route = await this.deps.routes.insert({
        endpointId,
        method: input.method,
        path: input.path,
        name: input.name ?? null,
        description: input.description ?? null,
      });
      this.deps.changed(endpointId);
      return route;
    } catch (err) {
      throw duplicate(err);
    }
  }

  async update(id: string, patch: Static<typeof RoutePatch>): Promise<Route> {
    const route = await this.get(id);
    if (patch.path !== undefined) parseTemplate(patch.path);
    let updated: Route | undefined;
    try {
      updated = await this.deps.routes.update(id, patch);
    } catch (err) {
      throw duplicate(err);
    }
    if (!updated) throw notFound('No such route', 'GATEWAY_ROUTE_NOT_FOUND');
    this.deps.changed(route.endpointId);
    return updated;
  }

  async delete(id: string): Promise<void> {
    const route = await this.get(id);
    await this.deps.routes.delete(id);
    this.deps.changed(route.endpointId);
  }

  /** A live call of the route with the endpoint's credentials. */
  async call(
    id: string,
    input: GatewayCallInput,
  ): Promise<{ endpoint: Endpoint; route: Route; answer: GatewayAnswer }> {
    const route = await this.get(id);
    const endpoint = await this.deps.endpoints.get(route.endpointId);
    return { endpoint, route, answer: await this.deps.caller.call(endpoint, route, input) };
  }

  /** Calls the route and stores the schema inferred from its JSON answer, with a trimmed sample. */
  async refreshSchema(id: string, input: GatewayCallInput): Promise<Route> {
    const { answer } = await this.call(id, input);
    if (answer.status < 200 || answer.status > 299)
      throw new HttpError(502, 'UPSTREAM_STATUS', `The upstream answered ${answer.status}; no schema inferred`);
    const json = parseJson(answer);
    if (json === undefined)
      throw new HttpError(
        502,
        'UPSTREAM_NOT_JSON',
        'The upstream answer is not JSON (or was cut off); no schema inferred',
      );
    const sample = fitting(trimSample(json), MAX_STORED_SAMPLE);
    const saved = await this.deps.routes.saveSchema(
      id,
      fitting(inferSchema(json), MAX_STORED_SCHEMA),
      sample,
      'inferred',
    );
    if (!saved) throw notFound('No such route', 'GATEWAY_ROUTE_NOT_FOUND');
    return saved;
  }

  /** Routes from an OpenAPI/Swagger document; a method and path the endpoint already has is skipped. All or nothing. */
  async importOpenApi(endpointId: string, text: string) {
    await this.deps.endpoints.get(endpointId);
    const spec = parseOpenApi(text);
    const existing = new Set((await this.deps.routes.listByEndpoint(endpointId)).map((r) => `${r.method} ${r.path}`));
    const created: Route[] = [];
    const skipped: { method: string; path: string }[] = [];
    await inTransaction(this.deps.db, undefined, async (trx) => {
      for (const op of spec.operations) {
        if (existing.has(`${op.method} ${op.path}`)) {
          skipped.push({ method: op.method, path: op.path });
          continue;
        }
        existing.add(`${op.method} ${op.path}`);
        const schema = op.responseSchema === null ? null : fitting(op.responseSchema, MAX_STORED_SCHEMA);
        created.push(
          await this.deps.routes.insert(
            {
              endpointId,
              method: op.method,
              path: op.path,
              name: op.name,
              description: op.description,
              responseSchema: schema,
              schemaSource: schema === null ? undefined : 'openapi',
            },
            trx,
          ),
        );
      }
    });
    this.deps.changed(endpointId);
    return { format: spec.format, title: spec.title, servers: spec.servers, created, skipped };
  }
}

/** The answer as JSON, or undefined when it is not (or was cut off). */
export function parseJson(answer: GatewayAnswer): unknown {
  if (answer.truncated) return undefined;
  try {
    return JSON.parse(answer.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The value when its JSON fits the byte cap, else null (never a half-stored document). */
function fitting(value: unknown, maxBytes: number): unknown {
  return Buffer.byteLength(JSON.stringify(value) ?? '') <= maxBytes ? value : null;
}

function duplicate(err: unknown): unknown {
  if (isUniqueViolation(err))
    return conflict('The endpoint already has a route with this method and path', 'UNIQUE_VIOLATION', 'path');
  return err;
}
