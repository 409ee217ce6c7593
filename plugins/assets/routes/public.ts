import { Type } from '@sinclair/typebox';
import { notFound, type App } from '../../../kernel/index.ts';
import { CACHE_POLICY } from '../services/delivery.ts';
import type { AssetServices } from '../services/index.ts';
import { PublicAsset } from './answers.ts';

/** Public references: a stable uuid resolves to the current delivery URL of a public asset. */
export async function publicRoutes(app: App, { library, urls }: AssetServices): Promise<void> {
  app.get(
    '/public/assets/:uuid',
    {
      config: { public: true },
      schema: {
        tags: ['public'],
        params: Type.Object({ uuid: Type.String({ maxLength: 64 }) }),
        response: { 200: PublicAsset },
      },
    },
    async (request, reply) => {
      // The answer names the current version: caches revalidate it as they do /dam-asset without one,
      // and never keep a miss (the asset may be uploaded or made public next).
      reply.header('cache-control', CACHE_POLICY.none);
      const row = (await library.resolve([request.params.uuid])).get(request.params.uuid);
      // Private assets are not revealed to anonymous callers, as on /dam-asset.
      if (!row || row.uuid !== request.params.uuid || row.visibility !== 'public')
        throw notFound('Asset not found', 'ASSET_NOT_FOUND');
      reply.header('cache-control', CACHE_POLICY.revalidate);
      const ref = urls.ref(row);
      return {
        uuid: ref.uuid,
        url: ref.url,
        thumbnailUrl: ref.thumbnailUrl,
        filename: ref.filename,
        mimeType: ref.mimeType,
        size: ref.size,
        width: row.width,
        height: row.height,
      };
    },
  );
}
