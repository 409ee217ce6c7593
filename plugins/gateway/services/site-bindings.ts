import { HttpError, notFound, unauthorized, type UserActor } from '../../../kernel/index.ts';
import type { CatalogCache } from './catalog-cache.ts';
import type { GatewayAnswer, GatewayBinding, GatewayBindingSource } from '../ports.ts';
import { applyResultFilter } from './result-filter.ts';
import { parseJson } from './route-service.ts';
import type { RouteCaller } from './route-caller.ts';
import { isUuid } from './endpoint-service.ts';

/** A plain key an upstream may answer with, passed on as `outcome`. */
const OUTCOME = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * Published sites read and send third-party data only through bindings the content plugin assigned
 * when a page was saved (it contributes them to the registry `gatewayBindingSources`): the site names
 * a binding id, never an URL, a route or a parameter. Without the content plugin every binding id is
 * unknown (404). Anonymous callers reach only live bindings (of published pages) and need the site
 * key; a preview (a signed-in `viewer`) reaches any binding its source lets that user preview, without
 * the site key. Any other binding answers exactly like an unknown id.
 */
/** Who calls: an anonymous published site, or a signed-in user previewing unpublished content. */
export type BindingCaller = { siteKey: string | undefined } | { viewer: UserActor };

export class SiteBindings {
  constructor(
    private readonly deps: { sources: readonly GatewayBindingSource[]; cache: CatalogCache; caller: RouteCaller },
  ) {}

  /** The upstream's JSON answer through the binding's result filter. */
  async resolve(bindingId: string, caller: BindingCaller): Promise<{ data: unknown }> {
    const binding = await this.binding(bindingId, 'resolve', caller);
    const answer = await this.call(binding, undefined);
    if (answer.status < 200 || answer.status > 299)
      throw new HttpError(502, 'UPSTREAM_STATUS', `The upstream answered ${answer.status}`);
    const json = parseJson(answer);
    if (json === undefined) throw new HttpError(502, 'UPSTREAM_NOT_JSON', 'The upstream answer is not JSON');
    return { data: applyResultFilter(json, binding.resultFilter) };
  }

  /** A form sent to the bound route: `{ success, response }`, plus `outcome` when the upstream answered a plain key. */
  async submit(
    bindingId: string,
    caller: BindingCaller,
    fields: Record<string, unknown>,
  ): Promise<{ success: boolean; response: unknown; outcome?: string }> {
    const binding = await this.binding(bindingId, 'submit', caller);
    const answer = await this.call(binding, fields);
    const json = parseJson(answer);
    const text = answer.body.toString('utf8');
    const success = answer.status >= 200 && answer.status <= 299;
    const response = json === undefined ? text : success ? applyResultFilter(json, binding.resultFilter) : json;
    const candidate = json === undefined ? text.trim() : typeof json === 'string' ? json : undefined;
    return candidate !== undefined && OUTCOME.test(candidate)
      ? { success, response, outcome: candidate }
      : { success, response };
  }

  private async binding(id: string, mode: GatewayBinding['mode'], caller: BindingCaller): Promise<GatewayBinding> {
    const found = isUuidOrKey(id) ? await this.find(id) : undefined;
    if (!found || found.binding.mode !== mode) throw notFound('No such gateway binding', 'BINDING_NOT_FOUND');
    const { binding, source } = found;
    if ('viewer' in caller) {
      // A preview: the source decides who may see the content holding the binding.
      if (!(source.mayPreview && (await source.mayPreview(binding, caller.viewer))))
        throw notFound('No such gateway binding', 'BINDING_NOT_FOUND');
      return binding;
    }
    // A binding of unpublished content is not live: the same answer as an unknown id, before the site
    // key is looked at, so nothing tells that it exists.
    if (binding.live !== true) throw notFound('No such gateway binding', 'BINDING_NOT_FOUND');
    if (!(await source.checkSiteKey(binding.websiteId, caller.siteKey)))
      throw unauthorized('The website site key is missing or wrong', 'SITE_KEY_INVALID');
    return binding;
  }

  /** The first source that knows the binding (the site key is checked with that source). */
  private async find(id: string): Promise<{ binding: GatewayBinding; source: GatewayBindingSource } | undefined> {
    for (const source of this.deps.sources) {
      const binding = await source.findBinding(id);
      if (binding) return { binding, source };
    }
    return undefined;
  }

  private async call(binding: GatewayBinding, body: unknown): Promise<GatewayAnswer> {
    if (!isUuid(binding.endpointId) || !isUuid(binding.routeId))
      throw notFound('No such gateway binding', 'BINDING_NOT_FOUND');
    const entry = await this.deps.cache.byEndpointId(binding.endpointId);
    const route = entry?.routes.find((r) => r.id === binding.routeId);
    // A binding whose route was deleted since the page was saved answers like an unknown binding.
    if (!entry || !route) throw notFound('No such gateway binding', 'BINDING_NOT_FOUND');
    return this.deps.caller.call(entry.endpoint, route, {
      params: binding.parameters.path,
      query: binding.parameters.query,
      body,
    });
  }
}

const isUuidOrKey = (id: string) => isUuid(id) || /^[A-Za-z0-9_-]{1,100}$/.test(id);
