import type http from 'node:http';
import { getGlobalDispatcher, request } from 'undici';
import { definePlugin, HttpError, type ServiceMap } from '../../../kernel/index.ts';
import type { PluginManifest } from '../../../kernel/plugin.ts';
import type { SeenRequest } from '../../../test/helpers/upstream.ts';

type GatewayRoutes = ServiceMap['gatewayRoutes'];
type OutboundFetch = ServiceMap['outboundFetch'];
type RouteRef = Awaited<ReturnType<GatewayRoutes['findRoute']>> & object;
type Answer = Awaited<ReturnType<GatewayRoutes['callRoute']>>;

export interface FixtureEndpoint {
  id: string;
  name: string;
  baseUrl: string;
  /** The credential the gateway adds to every call (header name and value). */
  credential: [string, string];
  routes: Array<{ id: string; method: string; pathTemplate: string }>;
}

const MAX_ANSWER = 1024 * 1024;

async function answerOf(res: Awaited<ReturnType<typeof request>>): Promise<Answer> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of res.body) {
    const buf = chunk as Buffer;
    if (size + buf.length > MAX_ANSWER) {
      truncated = true;
      chunks.push(buf.subarray(0, MAX_ANSWER - size));
      res.body.destroy();
      break;
    }
    size += buf.length;
    chunks.push(buf);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers[name] = value;
  return { status: res.statusCode, headers, body: Buffer.concat(chunks), truncated };
}

function templateRegex(template: string): { regex: RegExp; names: string[] } {
  const names: string[] = [];
  const source = template
    .split(/(\{[A-Za-z0-9_]+\})/)
    .map((part) => {
      const m = /^\{([A-Za-z0-9_]+)\}$/.exec(part);
      if (!m) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(m[1]);
      return '([^/]+)';
    })
    .join('');
  return { regex: new RegExp(`^${source}$`), names };
}

/**
 * A test stand-in for the gateway plugin's `gatewayRoutes` and `outboundFetch`: real endpoints and routes held in memory,
 * calls made for real with undici to local upstreams, the endpoint's credential added, the caller's
 * headers limited to what it passes. `outboundFetch` fetches for real and counts its calls.
 */
export function fixtureCatalog(endpoints: FixtureEndpoint[]): { plugin: PluginManifest; outboundCalls: string[] } {
  const outboundCalls: string[] = [];
  const refOf = (e: FixtureEndpoint, r: FixtureEndpoint['routes'][number]): RouteRef => ({
    endpointId: e.id,
    endpointName: e.name,
    routeId: r.id,
    method: r.method,
    pathTemplate: r.pathTemplate,
    pathParams: templateRegex(r.pathTemplate).names,
  });
  const endpointOf = (idOrName: string) => endpoints.find((e) => e.id === idOrName || e.name === idOrName);

  const routes: GatewayRoutes = {
    async findRoute(endpointId, routeId) {
      const e = endpoints.find((x) => x.id === endpointId);
      const r = e?.routes.find((x) => x.id === routeId);
      return e && r ? refOf(e, r) : undefined;
    },
    async matchRoute(endpoint, method, path) {
      const e = endpointOf(endpoint);
      for (const r of e?.routes ?? []) {
        if (r.method !== method.toUpperCase()) continue;
        const { regex, names } = templateRegex(r.pathTemplate);
        const m = regex.exec(path);
        if (m)
          return {
            route: refOf(e!, r),
            params: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1])])),
          };
      }
      return undefined;
    },
    async callRoute(endpointId, routeId, input) {
      return answerOf(await send(endpointId, routeId, input));
    },
    async streamRoute(endpointId, routeId, input) {
      const res = await send(endpointId, routeId, input);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers[name] = value;
      return { status: res.statusCode, headers, body: res.body };
    },
  };
  async function send(endpointId: string, routeId: string, input: Parameters<GatewayRoutes['callRoute']>[2]) {
    const e = endpoints.find((x) => x.id === endpointId);
    const r = e?.routes.find((x) => x.id === routeId);
    if (!e || !r) throw new HttpError(404, 'ROUTE_NOT_FOUND', 'Route not found');
    const path = r.pathTemplate.replace(/\{([A-Za-z0-9_]+)\}/g, (_, n: string) =>
      encodeURIComponent(input.params?.[n] ?? ''),
    );
    const url = new URL(path, e.baseUrl);
    for (const [name, value] of Object.entries(input.query ?? {}))
      for (const v of [value].flat()) url.searchParams.append(name, v);
    const body =
      input.body === undefined
        ? undefined
        : Buffer.isBuffer(input.body) || typeof input.body === 'string'
          ? input.body
          : JSON.stringify(input.body);
    const headers: Record<string, string> = { ...(input.headers ?? {}), [e.credential[0]]: e.credential[1] };
    if (body !== undefined && !Buffer.isBuffer(input.body) && typeof input.body !== 'string')
      headers['content-type'] = 'application/json';
    try {
      return await request(url, {
        method: r.method as 'GET',
        headers,
        body,
        headersTimeout: input.timeoutMs ?? 5_000,
        bodyTimeout: input.timeoutMs ?? 5_000,
      });
    } catch (err) {
      throw new HttpError(502, 'UPSTREAM_FAILED', `Upstream failed: ${(err as Error).message}`);
    }
  }
  const outbound: OutboundFetch = {
    async fetch(url, init = {}) {
      outboundCalls.push(url);
      try {
        return await answerOf(
          await request(url, { method: (init.method ?? 'GET') as 'GET', headers: init.headers, body: init.body }),
        );
      } catch (err) {
        throw new HttpError(502, 'UPSTREAM_FAILED', `Outbound request failed: ${(err as Error).message}`);
      }
    },
    // The stand-in has no address policy: every URL may be called.
    refusal: async () => undefined,
    dispatcher: getGlobalDispatcher(),
  };
  const plugin = definePlugin({
    id: 'fixture-gateway',
    processes: ['gateway', 'core-api'],
    needs: [],
    provides: { gatewayRoutes: () => routes, outboundFetch: () => outbound },
  });
  return { plugin: plugin as PluginManifest, outboundCalls };
}

/** An upstream's answer that echoes method, url and body as JSON, with headers a passthrough must not forward. */
export function echoWithInternalHeaders(req: SeenRequest, res: http.ServerResponse): void {
  res.setHeader('content-type', 'application/json');
  res.setHeader('set-cookie', 'upstream=1');
  res.setHeader('x-upstream-secret', 'internal');
  res.end(JSON.stringify({ method: req.method, url: req.url, body: req.body }));
}
