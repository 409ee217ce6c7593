import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin, type App } from '../../kernel/index.ts';
import { ClientApiConfig } from './config.ts';
import { adminClientRoutes } from './routes/admin-clients.ts';
import { clientDataRoutes } from './routes/client-data.ts';
import { clientGatewayRoutes } from './routes/client-gateway.ts';
import { clientMeRoutes } from './routes/client-me.ts';
import { installClientScope } from './routes/client-scope.ts';
import { createClientApiServices } from './services/index.ts';
import { CLIENT_API_PERMISSIONS } from './permissions.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * API clients and the client surface `/client/v1` on the gateway: client and key administration
 * (`gateway:manage`), key and identity-provider-token authentication, scopes, address lists, expiry,
 * per-client rate limits (memory, or Redis shared by several gateway processes), published data
 * reads and draft writes through the data plugin's `dataObjects`, and automation calls and
 * passthrough to gateway routes through `gatewayRoutes` when the gateway plugin is loaded (identity-provider
 * documents through its `outboundFetch`).
 */
export default definePlugin({
  id: 'client-api',
  processes: ['gateway'],
  permissions: CLIENT_API_PERMISSIONS,
  needs: ['db', 'clock', 'config', 'dataObjects', 'outboundGuard', 'rateLimitStore', 'cacheNotices'],
  optional: ['gatewayRoutes', 'outboundFetch'],
  config: ClientApiConfig,
  migrations: path.join(here, 'migrations'),
  setup: (deps) => createClientApiServices(deps),
  async routes(app, { services, db }) {
    await adminClientRoutes(app, services);
    // Its own encapsulated context: the client hooks touch only /client/v1.
    await app.register(async (scope) => {
      const client = scope as App;
      installClientScope(client, services);
      await clientMeRoutes(client, services);
      await clientDataRoutes(client, services, db);
      await clientGatewayRoutes(client, services);
    });
  },
});
