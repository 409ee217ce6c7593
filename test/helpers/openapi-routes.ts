/**
 * The routes of a process as its OpenAPI document (`GET /openapi.json`) describes them, and the
 * values a probe derives from their schemas: a minimal valid value, and a value of a wrong type that
 * ajv's coercion cannot turn into a valid one.
 */

/** The part of JSON Schema (as @fastify/swagger writes it) the probes read. */
export interface JsonSchema {
  type?: string | string[];
  nullable?: boolean;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
}

export interface RouteParam {
  name: string;
  schema: JsonSchema;
  required: boolean;
}

export interface DocumentedRoute {
  /** `PATCH /data-classes/{id}`, the key of exemption and known-failure lists. */
  label: string;
  method: string;
  /** The path in OpenAPI form, `{name}` for each path parameter. */
  path: string;
  pathParams: RouteParam[];
  query: RouteParam[];
  /** The JSON body schema, when the route takes a body. */
  body?: JsonSchema;
}

interface OpenApiOperation {
  parameters?: Array<{ in: string; name: string; required?: boolean; schema?: JsonSchema }>;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

/** Every operation of the document, in document order. */
export function documentedRoutes(doc: { paths: Record<string, Record<string, OpenApiOperation>> }): DocumentedRoute[] {
  const routes: DocumentedRoute[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(operations)) {
      const params = (where: string) =>
        (op.parameters ?? [])
          .filter((p) => p.in === where)
          .map((p) => ({ name: p.name, schema: p.schema ?? {}, required: p.required === true }));
      routes.push({
        label: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        pathParams: params('path'),
        query: params('query'),
        body: op.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return routes;
}

/** The JSON types a schema accepts ('any' when it does not say). */
export function acceptedTypes(schema: JsonSchema): Set<string> {
  const options = schema.anyOf ?? schema.oneOf;
  if (options) return new Set(options.flatMap((o) => [...acceptedTypes(o)]));
  if (schema.enum || schema.const !== undefined)
    return new Set((schema.enum ?? [schema.const]).map((v) => (v === null ? 'null' : typeof v)));
  if (schema.type === undefined) return new Set(['any']);
  const types = new Set(Array.isArray(schema.type) ? schema.type : [schema.type]);
  if (schema.nullable) types.add('null');
  if (types.has('integer')) types.add('number');
  return types;
}

export const PROBE_UUID = '00000000-0000-4000-8000-000000000000';

/** A value the schema accepts, as small as the schema allows (required properties only). */
export function minimalValue(schema: JsonSchema): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const options = schema.anyOf ?? schema.oneOf;
  if (options) return minimalValue(options.find((o) => !acceptedTypes(o).has('null')) ?? options[0]);
  const types = acceptedTypes(schema);
  if (types.has('any')) return 'x';
  const type = [...types].find((t) => t !== 'null' && t !== 'number') ?? [...types][0];
  switch (type) {
    case 'object':
      return Object.fromEntries(
        (schema.required ?? []).map((name) => [name, minimalValue(schema.properties?.[name] ?? {})]),
      );
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => minimalValue(schema.items ?? {}));
    case 'string':
      return minimalString(schema);
    case 'integer':
    case 'number':
      return Math.min(schema.minimum ?? 1, schema.maximum ?? Number.MAX_SAFE_INTEGER);
    case 'boolean':
      return false;
    default:
      return null;
  }
}

function minimalString(schema: JsonSchema): string {
  switch (schema.format) {
    case 'email':
      return 'probe@example.test';
    case 'uuid':
      return PROBE_UUID;
    case 'date-time':
      return '2024-01-01T00:00:00.000Z';
    case 'date':
      return '2024-01-01';
  }
  return 'x'.repeat(Math.min(Math.max(schema.minLength ?? 1, 1), schema.maxLength ?? Infinity));
}

/**
 * A value of a type the schema refuses and that ajv's coercion (`coerceTypes: 'array'`) cannot turn
 * into an accepted one, or undefined when there is none (the schema accepts anything).
 */
export function wrongTypeValue(schema: JsonSchema): unknown {
  const types = acceptedTypes(schema);
  if (types.has('any')) return undefined;
  // An object coerces to nothing; a non-numeric string coerces only to an array of itself.
  if (!types.has('object')) return { probe: 1 };
  if (!types.has('string') && !types.has('array')) return 'probe';
  return undefined;
}

/** A string one character over the schema's cap, or undefined when it has none. */
export function oversizeString(schema: JsonSchema): string | undefined {
  if (schema.maxLength === undefined || !acceptedTypes(schema).has('string')) return undefined;
  const base = minimalString({ ...schema, maxLength: undefined });
  return base.length > schema.maxLength ? base : base + 'x'.repeat(schema.maxLength + 1 - base.length);
}
