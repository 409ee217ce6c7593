import { existsSync, statSync } from 'node:fs';
import type { App } from '../../../kernel/index.ts';
import { REMOTE_ID, type GatewayRemotePlugin } from '../remote-plugins.ts';

export interface MountedRemotePlugin {
  id: string;
  description: string | null;
  version: string | null;
  prefix: string;
  routes: { method: string; url: string }[];
}

/**
 * Mounts each contributed remote plugin's routes folder under `/api/remote/<id>/` with
 * @fastify/autoload, in its own encapsulated context. Access control is the kernel's as for every route
 * (each route declares a permission, session or public). A bad contribution stops start-up naming it.
 */
export async function mountRemotePlugins(
  app: App,
  contributions: readonly GatewayRemotePlugin[],
): Promise<MountedRemotePlugin[]> {
  // Our sources run as TypeScript through tsx's loader API, which autoload does not detect by itself.
  if (import.meta.url.endsWith('.ts')) process.env.FASTIFY_AUTOLOAD_TYPESCRIPT ??= '1';
  const mounted: MountedRemotePlugin[] = [];
  // Imported only when some plugin contributes a remote plugin: most installations have none.
  const autoload = contributions.length ? (await import('@fastify/autoload')).default : undefined;
  for (const remote of contributions) {
    if (!REMOTE_ID.test(remote.id)) throw new Error(`Gateway remote plugin "${remote.id}": the id must be kebab-case`);
    if (mounted.some((m) => m.id === remote.id))
      throw new Error(`Gateway remote plugin "${remote.id}" is contributed twice`);
    if (!existsSync(remote.routesDir) || !statSync(remote.routesDir).isDirectory()) {
      throw new Error(`Gateway remote plugin "${remote.id}": routes folder ${remote.routesDir} does not exist`);
    }
    const prefix = `/api/remote/${remote.id}`;
    const entry: MountedRemotePlugin = {
      id: remote.id,
      description: remote.description ?? null,
      version: remote.version ?? null,
      prefix,
      routes: [],
    };
    await app.register(async (scope) => {
      scope.addHook('onRoute', (route) => {
        for (const method of [route.method].flat())
          if (method !== 'HEAD') entry.routes.push({ method, url: route.url });
      });
      await scope.register(autoload!, {
        dir: remote.routesDir,
        options: { ...remote.options, prefix },
        dirNameRoutePrefix: true,
        forceESM: true,
      });
    });
    mounted.push(entry);
  }
  return mounted;
}
