import { Type } from '@sinclair/typebox';
import type { App } from '../../../kernel/index.ts';
import type { AssetServices } from '../services/index.ts';
import { PRESET_NAME } from '../services/presets.ts';
import { emptyAnswer, nonJsonAnswer } from './answers.ts';

const DeliveryQuery = Type.Object({
  preset: Type.Optional(Type.String({ pattern: PRESET_NAME, maxLength: 64 })),
  thumb: Type.Optional(Type.Integer({ minimum: 1, maximum: 9999 })),
  // The current version is immutable, an older one redirects to it, any other value is 404 (README).
  v: Type.Optional(Type.String({ maxLength: 20 })),
});

/**
 * `GET`/`HEAD /dam-asset/<path>`: public files for anyone, private ones to callers who may read the
 * library (`assets:read`) or hold the service token (while DAM_ENFORCE_ASSET_VISIBILITY is on). Only stored files, thumbnails and named presets are served:
 * an anonymous caller can never ask for an arbitrary size.
 */
export async function deliveryRoutes(app: App, { delivery }: AssetServices): Promise<void> {
  app.get(
    '/dam-asset/*',
    {
      config: { public: true },
      schema: {
        tags: ['assets'],
        params: Type.Object({ '*': Type.String({ maxLength: 2048 }) }),
        querystring: DeliveryQuery,
        response: {
          200: nonJsonAnswer('*/*', 'the stored file, thumbnail or preset image, in its own content type'),
          206: nonJsonAnswer('*/*', 'the asked byte range of the file'),
          302: emptyAnswer('an older version (`?v=`) redirects to the current one'),
          304: emptyAnswer('not modified since the validators the request sent'),
        },
      },
    },
    async (request, reply) => delivery.serve(request, reply, request.params['*'], request.query),
  );
}
