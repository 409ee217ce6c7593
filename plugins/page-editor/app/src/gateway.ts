import { type ApiAnswer, type ApiBody, api, unwrap } from '../../../admin-ui/app/src/sdk/index.ts';
import { type ContentNode, type NodePath, nodeAt, updateAt } from './tree.ts';

/**
 * Gateway content bindings as the editor keeps them: `props.binding` of a node (the content
 * plugin's shape, `plugins/content/README.md`) and the server-assigned `props.gatewayBindingId`.
 * The catalog calls go to the gateway's administration routes (`gateway:manage`).
 */
export interface GatewayBinding {
  endpointId: string;
  routeId: string;
  parameters?: { path?: Record<string, string>; query?: Record<string, string> };
  resultFilter?: { path?: string; pick?: string[]; rename?: Record<string, string>; limit?: number };
  mode?: 'resolve' | 'submit';
}

/** The key that reads the gateway's endpoints and routes and calls them for a preview. */
export const GATEWAY_KEY = 'gateway:manage';

export type GatewayEndpoint = ApiAnswer<'/api/v1/gateway/endpoints', 'get'>['items'][number];
export type GatewayRoute = ApiAnswer<'/api/v1/gateway/endpoints/{id}/routes', 'get'>['items'][number];
export type RouteSchema = ApiAnswer<'/api/v1/gateway/routes/{id}/schema', 'get'>;
export type PreviewAnswer = ApiAnswer<'/api/v1/gateway/preview-resolve', 'post'>;

const strings = (value: unknown): Record<string, string> | undefined => {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const entries = Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string');
  return entries.length ? Object.fromEntries(entries) : undefined;
};

/** The node's binding, or null when it has none (a malformed one reads as what can be made of it). */
export function bindingOf(node: ContentNode): GatewayBinding | null {
  const raw = node.props?.binding;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const b = raw as Record<string, unknown>;
  const params = (b.parameters ?? {}) as Record<string, unknown>;
  const filter = (b.resultFilter ?? {}) as Record<string, unknown>;
  const resultFilter: NonNullable<GatewayBinding['resultFilter']> = {};
  if (typeof filter.path === 'string') resultFilter.path = filter.path;
  if (Array.isArray(filter.pick)) resultFilter.pick = filter.pick.filter((p): p is string => typeof p === 'string');
  const rename = strings(filter.rename);
  if (rename) resultFilter.rename = rename;
  if (typeof filter.limit === 'number') resultFilter.limit = filter.limit;
  return {
    endpointId: typeof b.endpointId === 'string' ? b.endpointId : '',
    routeId: typeof b.routeId === 'string' ? b.routeId : '',
    parameters: { path: strings(params.path), query: strings(params.query) },
    resultFilter,
    mode: b.mode === 'submit' ? 'submit' : 'resolve',
  };
}

/** One text per binding, whatever order or empty parts it was written with: to compare two. */
export const bindingKey = (binding: GatewayBinding | null): string =>
  JSON.stringify(binding && bindingOf({ type: 'div', props: { binding } }));

export const bindingIdOf = (node: ContentNode): string | null =>
  typeof node.props?.gatewayBindingId === 'string' ? node.props.gatewayBindingId : null;

/** The node bound as `binding`; the id it carries stays, so the site's script keeps working. */
export const withBinding = (node: ContentNode, binding: GatewayBinding): ContentNode => ({
  ...node,
  props: { ...(node.props ?? {}), binding: binding as unknown as Record<string, unknown> },
});

/** The node without its binding and binding id. */
export function withoutBinding(node: ContentNode): ContentNode {
  const { binding: _binding, gatewayBindingId: _id, ...rest } = node.props ?? {};
  return { ...node, props: rest };
}

/** Paths of the bound nodes of a tree (iterative: trees have thousands of nodes). */
export function boundPaths(root: ContentNode): NodePath[] {
  const found: NodePath[] = [];
  const stack: Array<{ node: ContentNode; path: NodePath }> = [{ node: root, path: [] }];
  while (stack.length) {
    const { node, path } = stack.pop()!;
    if (node.props?.binding) found.push(path);
    const children = node.children ?? [];
    for (let i = 0; i < children.length; i++) stack.push({ node: children[i], path: [...path, i] });
  }
  return found;
}

export async function listEndpoints(): Promise<GatewayEndpoint[]> {
  return unwrap(await api.GET('/api/v1/gateway/endpoints')).items;
}

export async function listRoutes(endpointId: string): Promise<GatewayRoute[]> {
  return unwrap(await api.GET('/api/v1/gateway/endpoints/{id}/routes', { params: { path: { id: endpointId } } })).items;
}

export async function routeSchema(routeId: string): Promise<RouteSchema> {
  return unwrap(await api.GET('/api/v1/gateway/routes/{id}/schema', { params: { path: { id: routeId } } }));
}

/** A live call that stores the route's inferred schema and sample (the fields to pick from). */
export async function refreshRouteSchema(routeId: string, binding: GatewayBinding): Promise<RouteSchema> {
  return unwrap(
    await api.POST('/api/v1/gateway/routes/{id}/refresh-schema', {
      params: { path: { id: routeId } },
      body: { params: binding.parameters?.path, query: binding.parameters?.query },
    }),
  );
}

/** What the binding would answer a site now: the upstream's status and the filtered data. */
export async function previewBinding(binding: GatewayBinding): Promise<PreviewAnswer> {
  const body: ApiBody<'/api/v1/gateway/preview-resolve', 'post'> = {
    endpointId: binding.endpointId,
    routeId: binding.routeId,
    parameters: binding.parameters,
    resultFilter: binding.resultFilter,
  };
  return unwrap(await api.POST('/api/v1/gateway/preview-resolve', { body }));
}

/**
 * What a saved binding answers now, as a site would get it (`/api/v1/gateway/preview/resolve`: a
 * session that may read the page; the page need not be published). Needs no gateway key.
 */
export async function previewSavedBinding(gatewayBindingId: string): Promise<unknown> {
  return unwrap(await api.POST('/api/v1/gateway/preview/resolve', { body: { gatewayBindingId } })).data;
}

export type FieldKind = 'object' | 'array' | 'value';

// Stored schemas come back in the database's key order (shortest first): alphabetical reads better.
const byName = <T extends { name: string }>(fields: T[]) => fields.sort((a, b) => a.name.localeCompare(b.name));

type Schema = { type?: unknown; properties?: Record<string, Schema>; items?: Schema };
const isArraySchema = (s: Schema) => s.type === 'array' || (Array.isArray(s.type) && s.type.includes('array'));

/**
 * The fields of a row at the filter's `path` of an answer, from the route's schema (inferred or
 * from OpenAPI), else from its sample: what the editor offers to pick and rename.
 */
export function fieldsAt(
  info: Pick<RouteSchema, 'schema' | 'sample'>,
  path: string,
): Array<{ name: string; kind: FieldKind }> {
  const segments = path ? path.split('.') : [];
  let schema = (info.schema ?? null) as Schema | null;
  for (const segment of segments) {
    if (!schema) break;
    if (isArraySchema(schema)) schema = schema.items ?? null;
    schema = schema?.properties && Object.hasOwn(schema.properties, segment) ? schema.properties[segment] : null;
  }
  if (schema && isArraySchema(schema)) schema = schema.items ?? null;
  if (schema?.properties)
    return byName(
      Object.entries(schema.properties).map(([name, s]) => ({
        name,
        kind: isArraySchema(s) ? 'array' : s.type === 'object' || s.properties ? 'object' : 'value',
      })),
    );
  let value: unknown = info.sample;
  for (const segment of segments) {
    if (Array.isArray(value)) value = value[0];
    value =
      value && typeof value === 'object' && Object.hasOwn(value, segment)
        ? (value as Record<string, unknown>)[segment]
        : undefined;
  }
  if (Array.isArray(value)) value = value[0];
  if (!value || typeof value !== 'object') return [];
  return byName(
    Object.entries(value).map(([name, v]) => ({
      name,
      kind: Array.isArray(v) ? 'array' : v && typeof v === 'object' ? 'object' : 'value',
    })),
  );
}

/**
 * After a save: the binding ids the server assigned (`stored`, the content as saved), set on the
 * nodes at the same places that carry the same binding, so the next save keeps them. In the present
 * tree an id the node has is replaced (a duplicated block got one of its own); undo and redo steps
 * only get ids they lack.
 */
export function assignedBindingIds(stored: ContentNode): {
  present: (tree: ContentNode) => ContentNode;
  steps: (tree: ContentNode) => ContentNode;
} {
  const assigned = boundPaths(stored).flatMap((path) => {
    const node = nodeAt(stored, path)!;
    const id = bindingIdOf(node);
    const binding = bindingOf(node);
    return id && binding ? [{ path, id, binding }] : [];
  });
  const apply = (overwrite: boolean) => (tree: ContentNode) => {
    let out = tree;
    for (const { path, id, binding } of assigned) {
      const node = nodeAt(out, path);
      const current = node && bindingOf(node);
      if (!node || !current || current.endpointId !== binding.endpointId || current.routeId !== binding.routeId)
        continue;
      const had = bindingIdOf(node);
      if (had === id || (had && !overwrite)) continue;
      out = updateAt(out, path, (n) => ({ ...n, props: { ...(n.props ?? {}), gatewayBindingId: id } }));
    }
    return out;
  };
  return { present: apply(true), steps: apply(false) };
}
