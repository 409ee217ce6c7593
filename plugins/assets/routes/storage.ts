import type { App } from '../../../kernel/index.ts';
import { ASSET_KEYS } from '../permissions.ts';
import type { AssetServices } from '../services/index.ts';
import { EnsuredBucket, StorageSettings } from './answers.ts';

/** Non-secret storage configuration and bucket creation. */
export async function storageRoutes(app: App, s: AssetServices): Promise<void> {
  const tags = ['assets'];
  app.get(
    '/api/v1/dam/info',
    { config: { permission: ASSET_KEYS.read }, schema: { tags, response: { 200: StorageSettings } } },
    async () => ({
      storage: s.storage.info(),
      limits: { maxFileBytes: s.config.ASSET_MAX_FILE_BYTES, maxInputPixels: s.config.ASSET_MAX_INPUT_PIXELS },
      thumbnailWidths: s.config.ASSET_THUMBNAIL_WIDTHS.split(',').map(Number),
      enforceVisibility: s.config.DAM_ENFORCE_ASSET_VISIBILITY,
    }),
  );
  // The bucket stays private: every byte is delivered through /dam-asset/*, so no public-read policy is set.
  app.post(
    '/api/v1/dam/ensure-bucket',
    { config: { permission: ASSET_KEYS.storage }, schema: { tags, response: { 200: EnsuredBucket } } },
    async () => ({
      ...(await s.storage.ensureBucket()),
      policy: 'private' as const,
      storage: s.storage.info(),
    }),
  );
}
