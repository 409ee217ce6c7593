/**
 * What an integrator's plugin contributes to the gateway's registry `gatewayRemotePlugins` to have a
 * folder of Fastify route files mounted under `/api/remote/<id>/` (with @fastify/autoload). The
 * contributing plugin is an ordinary plugin (from `plugins/` or a CMS_PLUGIN_PATH folder) with its own
 * manifest, permissions, migrations and services; only the mounting is the gateway's.
 */
export interface GatewayRemotePlugin {
  /** kebab-case; the prefix becomes `/api/remote/<id>`. Usually the contributing plugin's id. */
  id: string;
  description?: string;
  version?: string;
  /** Absolute path of the folder of route files (each default-exports a Fastify plugin). */
  routesDir: string;
  /** Handed to every route file as its options (e.g. the plugin's services). */
  options?: Record<string, unknown>;
}

export const REMOTE_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;
