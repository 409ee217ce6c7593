import { Type } from '@sinclair/typebox';
import { badRequest, type App } from '../../../kernel/index.ts';
import { ASSET_KEYS } from '../permissions.ts';
import type { AssetServices } from '../services/index.ts';
import { lookupAssetPath } from '../services/paths.ts';
import { Mirrored, MirrorStatus } from './answers.ts';
import { Id } from './schemas.ts';

/** CDN mirror: push a copy (assets:manage), and the public batch status by path. */
export async function mirrorRoutes(app: App, { mirror }: AssetServices): Promise<void> {
  app.post(
    '/api/v1/dam/assets/:id/mirror-cdn',
    {
      // The sandbox profile pushes nothing to a CDN.
      config: { permission: ASSET_KEYS.manage, sandbox: 'block' },
      schema: { tags: ['assets'], params: Type.Object({ id: Id }), response: { 200: Mirrored } },
    },
    async (request) => mirror.mirror(request.params.id),
  );
  app.get(
    '/public/dam/assets/mirror-status',
    {
      config: { public: true },
      schema: {
        tags: ['public'],
        querystring: Type.Object(
          {
            paths: Type.String({
              minLength: 1,
              maxLength: 20_000,
              description: 'comma-separated asset paths (at most 100)',
            }),
          },
          { additionalProperties: false },
        ),
        response: { 200: MirrorStatus },
      },
    },
    async (request) => {
      const raw = request.query.paths
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      if (raw.length === 0 || raw.length > 100) throw badRequest('paths must name 1 to 100 asset paths', 'paths');
      const paths = raw.map((p) => lookupAssetPath(p, 'paths').path);
      return { configured: mirror.configured, results: await mirror.status(paths) };
    },
  );
}
