import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../../kernel/clock.ts';
import type { PluginManifest } from '../../../kernel/plugin.ts';
import { startTestKernel, type TestUser } from '../../../test/helpers/kernel.ts';

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Upstream {
  url: string;
  port: number;
  requests: SeenRequest[];
  /** Replaces what the server answers. */
  handle(handler: (req: SeenRequest, res: http.ServerResponse) => void): void;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 that records every request; answers `{ ok: true, path }` by default. */
export async function startUpstream(host = '127.0.0.1'): Promise<Upstream> {
  const requests: SeenRequest[] = [];
  let handler = (req: SeenRequest, res: http.ServerResponse) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ ok: true, path: req.url }));
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(seen);
      handler(seen, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    requests,
    handle: (h) => void (handler = h),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A kernel with the gateway plugin, an administrator, a gateway manager and a user without the key. */
export async function startGatewayKernel(
  opts: { env?: Record<string, string>; extraPlugins?: PluginManifest[]; clock?: Clock; plugins?: string[] } = {},
) {
  const t = await startTestKernel({
    plugins: opts.plugins ?? ['gateway'],
    extraPlugins: opts.extraPlugins,
    env: opts.env,
    clock: opts.clock,
  });
  const { manager, stranger } = await t.users({ manager: ['gateway:manage'], stranger: [] });
  const call = t.call;
  let n = 0;
  const createEndpoint = async (body: Record<string, unknown>) => {
    const res = await call('POST', '/api/v1/gateway/endpoints', manager, {
      name: `ep-${Date.now().toString(36)}-${n++}`,
      ...body,
    });
    if (res.statusCode !== 201) throw new Error(`endpoint create failed: ${res.body}`);
    return res.json() as { id: string; name: string };
  };
  const createRoute = async (endpointId: string, method: string, path: string) => {
    const res = await call('POST', `/api/v1/gateway/endpoints/${endpointId}/routes`, manager, { method, path });
    if (res.statusCode !== 201) throw new Error(`route create failed: ${res.body}`);
    return res.json() as { id: string; path: string };
  };
  return { t, manager, stranger, call, createEndpoint, createRoute };
}
