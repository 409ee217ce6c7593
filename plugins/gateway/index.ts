import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../kernel/index.ts';
import { GatewayConfig } from './config.ts';
import { InternalForwarder } from './outbound/outbound-http.ts';
import type {} from './ports.ts';
import type { GatewayRemotePlugin } from './remote-plugins.ts';
import { catalogRoutes } from './routes/catalog.ts';
import { endpointRoutes } from './routes/endpoints.ts';
import { passthroughRoutes } from './routes/passthrough.ts';
import { publishedRoutes } from './routes/published.ts';
import { mountRemotePlugins } from './routes/remote.ts';
import { routeRoutes } from './routes/routes.ts';
import { createGatewayServices } from './services/index.ts';
import { GATEWAY_PERMISSIONS } from './permissions.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

declare module '../../kernel/index.ts' {
  interface PluginContributions {
    /** Remote plugins whose routes folder the gateway mounts under /api/remote/<id>/ (remote-plugins.ts). */
    gatewayRemotePlugins: GatewayRemotePlugin;
  }
}

/**
 * The gateway: upstream endpoints (credentials sealed, rate limits, timeouts) and their routes, OpenAPI
 * import, live calls under one outbound HTTP policy, published-site bindings (resolve/submit) read from
 * the registry `gatewayBindingSources` (the content plugin contributes its pages' bindings), the
 * passthroughs, vendor presets and remote plugins. core-api builds its services for `gatewayRoutes`
 * (subscriptions and page bindings check routes there); the routes run in the gateway only.
 */
export default definePlugin({
  id: 'gateway',
  processes: ['core-api', 'gateway'],
  permissions: GATEWAY_PERMISSIONS,
  routesIn: ['gateway'],
  needs: [
    'db',
    'clock',
    'secretBox',
    'outboundGuard',
    'sharedState',
    'cacheNotices',
    'extensions',
    'config',
    'gatewayRemotePlugins',
    'gatewayBindingSources',
  ],
  collects: ['gatewayRemotePlugins', 'gatewayBindingSources'],
  config: GatewayConfig,
  migrations: path.join(here, 'migrations'),
  setup: (deps) => createGatewayServices(deps),
  provides: {
    gatewayRoutes: ({ services }) => services.gatewayRoutes,
    outboundFetch: ({ services }) => services.outboundFetch,
  },
  async routes(app, ctx) {
    const { services, pluginConfig } = ctx;
    await endpointRoutes(app, services);
    await routeRoutes(app, services);
    await app.register(async (scope) => publishedRoutes(scope, services));
    const forwarder = new InternalForwarder();
    app.addHook('onClose', () => forwarder.close());
    await passthroughRoutes(app, forwarder, {
      coreApi: pluginConfig.GATEWAY_CORE_API_URL,
      assetProcessor: pluginConfig.GATEWAY_ASSET_PROCESSOR_URL,
    });
    const mounted = await mountRemotePlugins(app, ctx.gatewayRemotePlugins);
    await catalogRoutes(app, services, mounted);
  },
  onStop: ({ services }) => services.stop(),
});
