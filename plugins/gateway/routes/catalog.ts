import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import { GATEWAY_MANAGE } from '../permissions.ts';
import type { GatewayServices } from '../services/index.ts';
import type { MountedRemotePlugin } from './remote.ts';

const tags = ['gateway'];
const config = { permission: GATEWAY_MANAGE };

/** GET /api/v1/gateway/plugins and /presets: what this gateway process loaded. */
export async function catalogRoutes(
  app: App,
  { presets }: GatewayServices,
  mounted: readonly MountedRemotePlugin[],
): Promise<void> {
  app.get(
    '/api/v1/gateway/plugins',
    {
      config,
      schema: {
        tags,
        response: {
          200: Type.Object({
            items: Type.Array(
              Type.Object({
                id: Type.String(),
                description: Type.Union([Type.String(), Type.Null()]),
                version: Type.Union([Type.String(), Type.Null()]),
                prefix: Type.String(),
                routes: Type.Array(Type.Object({ method: Type.String(), url: Type.String() })),
              }),
            ),
          }),
        },
      },
    },
    async () => ({ items: [...mounted] }),
  );

  app.get(
    '/api/v1/gateway/presets',
    {
      config,
      schema: {
        tags,
        response: {
          200: Type.Object({
            items: Type.Array(
              Type.Object({
                id: Type.String(),
                name: Type.String(),
                description: Type.Union([Type.String(), Type.Null()]),
                docsUrl: Type.Union([Type.String(), Type.Null()]),
                baseUrl: Type.String(),
                auth: Type.Record(Type.String(), Type.String()),
                routes: Type.Array(
                  Type.Object({
                    method: Type.String(),
                    path: Type.String(),
                    name: Type.Optional(Type.String()),
                    description: Type.Optional(Type.String()),
                  }),
                ),
              }),
            ),
          }),
        },
      },
    },
    async () => ({ items: presets.list().map(({ file: _file, ...p }) => p) }),
  );
}
