import path from 'node:path';
import type { PluginDeps } from '../../../kernel/index.ts';
import type { AssetsConfig } from '../config.ts';
import { createStorage } from '../storage/index.ts';
import { S3Storage } from '../storage/s3.ts';
import { CdnMirror } from './cdn-mirror.ts';
import { UploadContentCheck } from './content-check.ts';
import { Delivery } from './delivery.ts';
import { AssetUrls } from './dto.ts';
import { BodyBuffers } from './body-buffers.ts';
import { configureSharp, ImageProcessor } from './images.ts';
import { LibraryService } from './library.ts';
import { PresetCatalog } from './presets.ts';
import { AssetServiceClient } from './asset-service-client.ts';
import { ServiceAuth } from './service-auth.ts';
import { FormUploads } from './form-uploads.ts';
import { UploadRules } from './upload-rules.ts';
import { UploadTickets } from './tickets.ts';

/** `websiteUploadRules`: the registry of websites' upload rules (the content plugin contributes them). */
export type AssetNeeds = 'db' | 'recordHooks' | 'sessions' | 'permissions' | 'config' | 'clock' | 'websiteUploadRules';
/** Larger raw image bodies get a buffer of their own, so an idle process keeps at most jobs x 16 MB. */
const MAX_KEPT_BODY_BYTES = 16 * 1024 * 1024;

export type AssetDeps = PluginDeps<AssetNeeds, never, typeof AssetsConfig>;

/** The plugin's services, built once per process: one store client, one image queue, one delivery cache. */
export function createAssetServices(deps: AssetDeps) {
  const cfg = deps.pluginConfig;
  const dataDir = path.resolve(deps.config.CMS_DATA_DIR);
  const storage = createStorage(cfg, dataDir);
  configureSharp({ concurrency: cfg.ASSET_SHARP_CONCURRENCY, cacheMb: cfg.ASSET_SHARP_CACHE_MB });
  const images = new ImageProcessor({
    maxInputPixels: cfg.ASSET_MAX_INPUT_PIXELS,
    maxInputPages: cfg.ASSET_MAX_INPUT_PAGES,
    timeoutSeconds: cfg.ASSET_IMAGE_TIMEOUT_SECONDS,
    jobs: cfg.ASSET_IMAGE_JOBS,
    jobsPerCaller: cfg.ASSET_IMAGE_JOBS_PER_CALLER ?? Math.max(1, Math.floor(cfg.ASSET_IMAGE_JOBS / 2)),
    queuePerCaller: cfg.ASSET_IMAGE_QUEUE_PER_CALLER,
  });
  // Raw image bodies are read into reused buffers only while the libvips cache is off (body-buffers.ts says why).
  const imageBodies =
    cfg.ASSET_SHARP_CACHE_MB === 0
      ? new BodyBuffers({ keep: cfg.ASSET_IMAGE_JOBS, maxKeptBytes: MAX_KEPT_BODY_BYTES })
      : null;
  const urls = new AssetUrls(cfg.DAM_PUBLIC_BASE_URL.replace(/\/$/, ''));
  const auth = new ServiceAuth({
    sessions: deps.sessions,
    permissions: deps.permissions,
    token: cfg.DAM_SERVICE_TOKEN,
  });
  const presets = new PresetCatalog(deps.db);
  // Received bytes wait here (same disk as the embedded store, so a rename would do) until stored.
  const tmpDir = path.join(dataDir, 'tmp', 'assets');
  let delivery: Delivery | undefined;
  let mirror: CdnMirror | undefined;
  const library = new LibraryService({
    db: deps.db,
    recordHooks: deps.recordHooks,
    storage,
    images,
    urls,
    log: deps.log,
    maxFileBytes: cfg.ASSET_MAX_FILE_BYTES,
    maxAssets: cfg.ASSET_MAX_COUNT,
    thumbnailWidths: cfg.ASSET_THUMBNAIL_WIDTHS.split(',')
      .map(Number)
      .filter((n) => n > 0),
    tmpDir,
    invalidate: (paths) => delivery?.invalidate(paths),
    withdrawPublicCopies: async (id) => mirror?.withdraw(id),
  });
  delivery = new Delivery({
    db: deps.db,
    storage,
    images,
    presets,
    library,
    enforceVisibility: cfg.DAM_ENFORCE_ASSET_VISIBILITY,
    mayReadPrivate: (request) => auth.mayRead(request),
  });
  const formUploads = new FormUploads({
    db: deps.db,
    clock: deps.clock,
    storage,
    library,
    log: deps.log,
    tickets: cfg.UPLOAD_TOKEN_SECRET ? new UploadTickets(cfg.UPLOAD_TOKEN_SECRET) : null,
    sites: new UploadRules(deps.websiteUploadRules),
    contentCheck: new UploadContentCheck(images),
    maxFileBytes: cfg.ASSET_MAX_FILE_BYTES,
    ticketTtlSeconds: cfg.UPLOAD_TICKET_TTL_SECONDS,
    stagingTtlSeconds: cfg.UPLOAD_STAGING_TTL_SECONDS,
    tmpDir,
    uploadUrlBase: cfg.DAM_PUBLIC_BASE_URL.replace(/\/$/, ''),
  });
  const mirrorTarget =
    cfg.DAM_CDN_MIRROR_S3_ENDPOINT &&
    cfg.DAM_CDN_MIRROR_S3_BUCKET &&
    cfg.DAM_CDN_MIRROR_S3_ACCESS_KEY_ID &&
    cfg.DAM_CDN_MIRROR_S3_SECRET_ACCESS_KEY
      ? new S3Storage({
          endpoint: cfg.DAM_CDN_MIRROR_S3_ENDPOINT,
          bucket: cfg.DAM_CDN_MIRROR_S3_BUCKET,
          region: cfg.DAM_CDN_MIRROR_S3_REGION,
          accessKeyId: cfg.DAM_CDN_MIRROR_S3_ACCESS_KEY_ID,
          secretAccessKey: cfg.DAM_CDN_MIRROR_S3_SECRET_ACCESS_KEY,
          forcePathStyle: cfg.DAM_CDN_MIRROR_S3_FORCE_PATH_STYLE,
          partSizeBytes: cfg.S3_PART_SIZE_MB * 1024 * 1024,
          queueSize: cfg.S3_UPLOAD_QUEUE_SIZE,
          prefix: '',
        })
      : null;
  mirror = new CdnMirror({
    db: deps.db,
    storage,
    target: mirrorTarget,
    publicBaseUrl: cfg.DAM_CDN_MIRROR_PUBLIC_BASE_URL,
    prefix: cfg.DAM_CDN_MIRROR_KEY_PREFIX,
    library,
  });
  // core-api in the split deployment: files live in the asset-processor, asked over HTTP.
  const serviceClient =
    cfg.ASSET_SERVICE_URL && cfg.DAM_SERVICE_TOKEN
      ? new AssetServiceClient(cfg.ASSET_SERVICE_URL, cfg.DAM_SERVICE_TOKEN)
      : null;
  return {
    storage,
    images,
    serviceClient,
    imageBodies,
    urls,
    auth,
    presets,
    library,
    delivery,
    formUploads,
    mirror,
    mirrorTarget,
    tmpDir,
    config: cfg,
  };
}

export type AssetServices = ReturnType<typeof createAssetServices>;
