import { parse } from 'yaml';
import { badRequest } from '../../../kernel/index.ts';
import { HTTP_METHODS, type HttpMethod, ROUTE_PATH_MAX_LENGTH } from '../model.ts';
import { parseTemplate } from './path-template.ts';

export interface ImportedOperation {
  method: HttpMethod;
  path: string;
  name: string | null;
  description: string | null;
  /** The JSON schema of the success answer, local `$ref`s resolved (depth-capped), when the spec gives one. */
  responseSchema: unknown;
}

export interface ParsedSpec {
  format: 'openapi-3.0' | 'openapi-3.1' | 'swagger-2.0';
  title: string | null;
  /** Base URL(s) the document names (OpenAPI `servers`, Swagger `schemes` + `host` + `basePath`). */
  servers: string[];
  operations: ImportedOperation[];
}

const MAX_OPERATIONS = 2000;
const MAX_REF_DEPTH = 8;

/**
 * Reads an OpenAPI 3.0/3.1 or Swagger 2.0 document, JSON or YAML (JSON is YAML), into the operations
 * to create as routes. Aliases are capped (no "billion laughs"); anything unreadable is a 400 on `spec`.
 */
export function parseOpenApi(text: string): ParsedSpec {
  let doc: unknown;
  try {
    doc = parse(text, { maxAliasCount: 100, uniqueKeys: false });
  } catch (err) {
    throw badRequest(`The document is neither JSON nor YAML: ${(err as Error).message.split('\n')[0]}`, 'spec');
  }
  if (!isObject(doc)) throw badRequest('The document is not an object', 'spec');
  const version =
    typeof doc.openapi === 'string'
      ? doc.openapi
      : typeof doc.swagger === 'string'
        ? `swagger-${doc.swagger}`
        : undefined;
  const format = version?.startsWith('3.0')
    ? 'openapi-3.0'
    : version?.startsWith('3.1')
      ? 'openapi-3.1'
      : version === 'swagger-2.0'
        ? 'swagger-2.0'
        : undefined;
  if (!format)
    throw badRequest('Not an OpenAPI 3.0/3.1 or Swagger 2.0 document (no "openapi: 3.x" or "swagger: 2.0")', 'spec');
  if (!isObject(doc.paths)) throw badRequest('The document has no paths', 'spec');
  const operations: ImportedOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    // A path the route form would refuse is left out, as one that is no template is.
    if (!isObject(item) || path.length > ROUTE_PATH_MAX_LENGTH) continue;
    try {
      parseTemplate(path);
    } catch {
      continue; // a path we cannot call as a template is left out, not a failure of the whole import
    }
    for (const method of HTTP_METHODS) {
      const op = item[method.toLowerCase()];
      if (!isObject(op)) continue;
      if (operations.length >= MAX_OPERATIONS)
        throw badRequest(`The document has more than ${MAX_OPERATIONS} operations`, 'spec');
      operations.push({
        method,
        path,
        name: text200(op.operationId) ?? null,
        description: text200(op.summary) ?? text200(op.description) ?? null,
        responseSchema: successSchema(doc, op, format),
      });
    }
  }
  return {
    format,
    title: isObject(doc.info) ? (text200(doc.info.title) ?? null) : null,
    servers: serversOf(doc, format),
    operations,
  };
}

function successSchema(
  doc: Record<string, unknown>,
  op: Record<string, unknown>,
  format: ParsedSpec['format'],
): unknown {
  if (!isObject(op.responses)) return null;
  const code = ['200', '201', '202', '2XX', 'default'].find((c) =>
    isObject((op.responses as Record<string, unknown>)[c]),
  );
  if (!code) return null;
  let response = (op.responses as Record<string, unknown>)[code] as Record<string, unknown>;
  response = resolveRef(doc, response, 0) as Record<string, unknown>;
  if (!isObject(response)) return null;
  let schema: unknown;
  if (format === 'swagger-2.0') schema = response.schema;
  else if (isObject(response.content)) {
    const content = response.content as Record<string, unknown>;
    const media = Object.keys(content).find((m) => /json/i.test(m));
    schema = media && isObject(content[media]) ? (content[media] as Record<string, unknown>).schema : undefined;
  }
  return schema === undefined ? null : resolveRef(doc, schema, 0);
}

/** Local `#/...` references replaced by their targets, to a fixed depth (cycles end as the bare `$ref`). */
function resolveRef(doc: Record<string, unknown>, node: unknown, depth: number): unknown {
  if (Array.isArray(node)) return node.slice(0, 500).map((n) => resolveRef(doc, n, depth + 1));
  if (!isObject(node)) return node;
  if (depth > MAX_REF_DEPTH * 4) return {};
  if (typeof node.$ref === 'string') {
    if (depth > MAX_REF_DEPTH || !node.$ref.startsWith('#/')) return { $ref: node.$ref };
    let target: unknown = doc;
    for (const part of node.$ref
      .slice(2)
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))) {
      target = isObject(target) && Object.hasOwn(target, part) ? target[part] : undefined;
    }
    return target === undefined ? { $ref: node.$ref } : resolveRef(doc, target, depth + 1);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) if (k !== '__proto__') out[k] = resolveRef(doc, v, depth + 1);
  return out;
}

function serversOf(doc: Record<string, unknown>, format: ParsedSpec['format']): string[] {
  if (format === 'swagger-2.0') {
    if (typeof doc.host !== 'string') return [];
    const schemes =
      Array.isArray(doc.schemes) && doc.schemes.length ? doc.schemes.filter((s) => typeof s === 'string') : ['https'];
    const basePath = typeof doc.basePath === 'string' ? doc.basePath.replace(/\/+$/, '') : '';
    return schemes.map((s) => `${s}://${doc.host}${basePath}`);
  }
  return Array.isArray(doc.servers)
    ? doc.servers.flatMap((s) => (isObject(s) && typeof s.url === 'string' ? [s.url] : [])).slice(0, 20)
    : [];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text200 = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim().slice(0, 200) : undefined);
