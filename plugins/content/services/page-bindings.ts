import { randomUUID } from 'node:crypto';
import { badRequest, type Tx } from '../../../kernel/index.ts';
import type { GatewayBinding } from '../ports.ts';
import type { BindingStore } from '../store/bindings.ts';
import type { ContentDeps } from './deps.ts';
import { walkNodes, type ContentNode } from './node-tree.ts';

const ID = /^[A-Za-z0-9_.:-]{1,200}$/;

function stringMap(value: unknown, path: string): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw badRequest('Must be an object of strings', path);
  const entries = Object.entries(value);
  if (entries.length > 50) throw badRequest('At most 50 parameters', path);
  for (const [k, v] of entries)
    if (typeof v !== 'string' || v.length > 2000)
      throw badRequest('Parameter values must be strings up to 2000 characters', `${path}.${k}`);
  return Object.fromEntries(entries) as Record<string, string>;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const CONTROL = /[\u0000-\u001f\u007f]/;

function resultFilter(value: unknown, path: string): GatewayBinding['resultFilter'] {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw badRequest('Result filter must be an object', path);
  const f = value as Record<string, unknown>;
  const out: NonNullable<GatewayBinding['resultFilter']> = {};
  // The same limits as the gateway's own filter (its preview-resolve takes what a save takes): a
  // dot path whose segments are the answer's keys, whatever characters those keys hold.
  if (f.path !== undefined) {
    if (typeof f.path !== 'string' || f.path.length > 500 || CONTROL.test(f.path))
      throw badRequest('Path must be a dot path of up to 500 characters', `${path}.path`);
    out.path = f.path;
  }
  if (f.pick !== undefined) {
    if (
      !Array.isArray(f.pick) ||
      f.pick.length > 100 ||
      f.pick.some((p) => typeof p !== 'string' || p.length > 200 || CONTROL.test(p))
    )
      throw badRequest('Pick must be up to 100 field names of up to 200 characters', `${path}.pick`);
    out.pick = f.pick as string[];
  }
  if (f.rename !== undefined) {
    const r = f.rename;
    if (r === null || typeof r !== 'object' || Array.isArray(r) || Object.keys(r).length > 100)
      throw badRequest('Rename must be an object of up to 100 names', `${path}.rename`);
    for (const [from, to] of Object.entries(r))
      if (from.length > 200 || typeof to !== 'string' || to.length > 200 || CONTROL.test(from) || CONTROL.test(to))
        throw badRequest('Names must be strings of up to 200 characters', `${path}.rename.${from}`);
    out.rename = r as Record<string, string>;
  }
  if (f.limit !== undefined) {
    if (!Number.isInteger(f.limit) || (f.limit as number) < 1 || (f.limit as number) > 1000)
      throw badRequest('Limit must be 1-1000', `${path}.limit`);
    out.limit = f.limit as number;
  }
  return out;
}

/**
 * Gateway content bindings of a tree: nodes with `props.binding` (`{ endpointId, routeId,
 * parameters?: { path?, query? }, resultFilter?, mode? }`). Each gets a server-assigned
 * `props.gatewayBindingId` (kept when the node already carries one of this page's ids); the route is
 * checked through `gatewayRoutes` when the gateway plugin is loaded. Mutates the tree's props and
 * answers the rows to store once the page row exists.
 */
export async function bindContent(
  deps: { kernel: ContentDeps; bindings: BindingStore },
  page: { id: string; websiteId: string; isNew: boolean },
  tree: ContentNode,
  trx: Tx,
): Promise<GatewayBinding[]> {
  const found: Array<{ node: ContentNode; path: string; binding: Record<string, unknown> }> = [];
  walkNodes(tree, 'content', (node, path) => {
    const binding = node.props?.binding;
    if (binding !== undefined) {
      if (binding === null || typeof binding !== 'object' || Array.isArray(binding))
        throw badRequest('Binding must be an object', `${path}.props.binding`);
      found.push({ node, path, binding: binding as Record<string, unknown> });
    } else if (node.props && 'gatewayBindingId' in node.props) {
      delete node.props.gatewayBindingId; // only the server assigns them
    }
  });
  if (found.length > 200) throw badRequest('At most 200 gateway bindings per page', 'content');
  const existing = page.isNew ? new Set<string>() : await deps.bindings.idsOfPage(page.id, trx);
  const out: GatewayBinding[] = [];
  const used = new Set<string>();
  for (const { node, path, binding } of found) {
    const at = `${path}.props.binding`;
    for (const key of ['endpointId', 'routeId'] as const) {
      if (typeof binding[key] !== 'string' || !ID.test(binding[key] as string))
        throw badRequest(`${key} is required`, `${at}.${key}`);
    }
    const mode = binding.mode ?? 'resolve';
    if (mode !== 'resolve' && mode !== 'submit') throw badRequest('Mode must be resolve or submit', `${at}.mode`);
    const params = binding.parameters ?? {};
    if (params === null || typeof params !== 'object' || Array.isArray(params))
      throw badRequest('Parameters must be an object', `${at}.parameters`);
    const p = params as Record<string, unknown>;
    const parameters: GatewayBinding['parameters'] = {};
    const pathParams = stringMap(p.path, `${at}.parameters.path`);
    const queryParams = stringMap(p.query, `${at}.parameters.query`);
    if (pathParams) parameters.path = pathParams;
    if (queryParams) parameters.query = queryParams;
    const endpointId = binding.endpointId as string;
    const routeId = binding.routeId as string;
    const gatewayRoutes = deps.kernel.gatewayRoutes;
    if (gatewayRoutes) {
      const route = await gatewayRoutes.findRoute(endpointId, routeId, trx);
      if (!route)
        throw badRequest(`Gateway route ${routeId} of endpoint ${endpointId} does not exist`, `${at}.routeId`);
      for (const name of route.pathParams) {
        if (!parameters.path?.[name])
          throw badRequest(`Path parameter "${name}" of the route has no value`, `${at}.parameters.path.${name}`);
      }
    }
    const kept = node.props?.gatewayBindingId;
    const id = typeof kept === 'string' && existing.has(kept) && !used.has(kept) ? kept : randomUUID();
    used.add(id);
    node.props = { ...node.props, gatewayBindingId: id };
    out.push({
      id,
      websiteId: page.websiteId,
      pageId: page.id,
      endpointId,
      routeId,
      parameters,
      resultFilter: resultFilter(binding.resultFilter, `${at}.resultFilter`),
      mode,
    });
  }
  return out;
}
