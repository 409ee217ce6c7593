import type { Clock } from '../../../kernel/clock.ts';
import type { PluginManifest } from '../../../kernel/plugin.ts';
import { startTestKernel } from '../../../test/helpers/kernel.ts';

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
