import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../kernel/index.ts';
import { AssetsConfig } from './config.ts';
import { ASSET_PERMISSIONS } from './permissions.ts';
import type { AssetLibrary } from './ports.ts';
import { deliveryRoutes } from './routes/delivery.ts';
import { folderRoutes } from './routes/folders.ts';
import { formRoutes } from './routes/forms.ts';
import { mirrorRoutes } from './routes/mirror.ts';
import { imageRoutes } from './routes/images.ts';
import { libraryRoutes } from './routes/library.ts';
import { presetRoutes } from './routes/presets.ts';
import { publicRoutes } from './routes/public.ts';
import { storageRoutes } from './routes/storage.ts';
import { provideAssetLibrary } from './services/asset-library-provider.ts';
import { assetBundleFiles, assetPublishFiles, remoteBundleFiles } from './services/bundle-files.ts';
import { bundleFileRoutes } from './routes/bundle-files.ts';
import { dataSubjectFileRoutes } from './routes/data-subject.ts';
import { localDataSubjectSource, remoteDataSubjectSource } from './services/data-subject.ts';
import { createAssetServices } from './services/index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Digital assets: a library of files in an object store (CMS_DATA_DIR/assets by default, any S3 store
 * when configured), image processing with sharp, thumbnails and named presets, and delivery through
 * `/dam-asset/*`. Every change announces itself (record type `asset`) in its transaction. Built in
 * core-api too, because `assetLibrary` (resolving references, attaching form uploads) is used there
 * in-process and core-api serves `/public/assets/:uuid`; see the README for which routes each serves.
 */
export default definePlugin({
  id: 'assets',
  processes: ['asset-processor', 'core-api'],
  routesIn: ['asset-processor', 'core-api'],
  // `websiteUploadRules`: the websites public form uploads are for, and their rules (content plugin).
  needs: ['db', 'recordHooks', 'sessions', 'permissions', 'config', 'clock', 'users', 'websiteUploadRules'],
  collects: ['websiteUploadRules'],
  permissions: ASSET_PERMISSIONS,
  config: AssetsConfig,
  // The public sandbox profile: small files, a small library, no CDN mirror (its target is unset).
  sandbox: {
    config: {
      ASSET_MAX_FILE_BYTES: 5 * 1024 * 1024,
      ASSET_MAX_COUNT: 200,
      DAM_CDN_MIRROR_S3_ENDPOINT: null,
      DAM_CDN_MIRROR_S3_BUCKET: null,
    },
  },
  migrations: path.join(here, 'migrations'),
  setup: (deps) => createAssetServices(deps),
  provides: {
    assetLibrary: ({ services, permissions }): AssetLibrary => provideAssetLibrary(services, permissions),
  },
  // With ASSET_SERVICE_URL (core-api in the split deployment) both ask the asset-processor over HTTP
  // through one client (services/asset-service-client.ts) instead of the local store.
  contributes: {
    // Library files a website bundle carries (the bundles plugin's registry).
    websiteBundleFiles: ({ services: s }) =>
      s.serviceClient ? remoteBundleFiles(s.serviceClient, s.config.ASSET_MAX_FILE_BYTES) : assetBundleFiles(s),
    // The public files a website's pages use, for static builds (publish plugin).
    sitePublishFiles: ({ services: s }) => assetPublishFiles(s),
    // A person's files (metadata, uploader, attached to their objects), for the data-subject plugin.
    dataSubjectSources: ({ services, db, users, recordHooks }) =>
      services.serviceClient
        ? remoteDataSubjectSource(services.serviceClient)
        : localDataSubjectSource(services, { db, users, recordHooks }),
  },
  // An unreachable store does not stop the process: its routes answer 503 until the store is back.
  async onStart({ services, log }) {
    await services.storage.ensureBucket().catch((err) => log.warn({ err }, 'asset store not ready at start'));
  },
  async onStop({ services }) {
    await services.storage.close();
    await services.mirrorTarget?.close();
  },
  async routes(app, { services, db, users, recordHooks }) {
    await libraryRoutes(app, services);
    await folderRoutes(app, services);
    await storageRoutes(app, services);
    await presetRoutes(app, services);
    await imageRoutes(app, services);
    await deliveryRoutes(app, services);
    await publicRoutes(app, services);
    await formRoutes(app, services);
    await mirrorRoutes(app, services);
    await bundleFileRoutes(app, services);
    await dataSubjectFileRoutes(app, services, localDataSubjectSource(services, { db, users, recordHooks }));
  },
  schedules: [
    // Staged form-upload bytes never attached are removed after UPLOAD_STAGING_TTL_SECONDS (~2 h):
    // every 10 minutes, in one process of the cluster.
    {
      name: 'form-uploads.purge',
      cron: '*/10 * * * *',
      run: async ({ services }) => void (await services.formUploads.purgeStaging()),
    },
  ],
});
