import { type TBoolean, type TOptional, type TString, Type } from '@sinclair/typebox';
import { EnvFlag } from '../../kernel/index.ts';

const MB = 1024 * 1024;

/** An absolute http(s) address (the start of the URLs handed out), or empty. */
const BaseUrl = (description: string) =>
  Type.String({ default: '', maxLength: 500, pattern: '^(https?://[^\\s]+)?$', description });

/** A key prefix inside a bucket: empty, or segments each ending with `/`. */
const KeyPrefix = (description: string) =>
  Type.String({ default: '', maxLength: 200, pattern: '^([A-Za-z0-9._-]+/)*$', description });

type S3TargetSettings<P extends string> = Record<
  `${P}ENDPOINT` | `${P}BUCKET` | `${P}ACCESS_KEY_ID` | `${P}SECRET_ACCESS_KEY`,
  TOptional<TString>
> &
  Record<`${P}REGION`, TString> &
  Record<`${P}FORCE_PATH_STYLE`, TBoolean>;

/**
 * The settings of one S3-compatible bucket, each name starting with `prefix`: endpoint, bucket, region,
 * access and secret key, path style. The asset store and the CDN mirror target each have one set.
 */
function s3Target<P extends string>(prefix: P, text: { target: string; endpoint: string }): S3TargetSettings<P> {
  return {
    [`${prefix}ENDPOINT`]: Type.Optional(
      Type.String({ pattern: '^https?://', maxLength: 500, description: text.endpoint }),
    ),
    [`${prefix}BUCKET`]: Type.Optional(
      Type.String({ minLength: 3, maxLength: 63, description: `bucket of ${text.target}` }),
    ),
    [`${prefix}REGION`]: Type.String({
      default: 'us-east-1',
      maxLength: 64,
      description: `region of ${text.target}, sent to its endpoint`,
    }),
    [`${prefix}ACCESS_KEY_ID`]: Type.Optional(
      Type.String({ minLength: 1, maxLength: 256, description: `access key of ${text.target}` }),
    ),
    [`${prefix}SECRET_ACCESS_KEY`]: Type.Optional(
      Type.String({ minLength: 1, maxLength: 256, description: `secret key of ${text.target} (never returned)` }),
    ),
    [`${prefix}FORCE_PATH_STYLE`]: EnvFlag(
      true,
      `1: path-style requests to ${text.target} (http://host/bucket/key), as most self-hosted stores need`,
    ),
  } as S3TargetSettings<P>;
}

/** The environment variables this plugin reads (its `pluginConfig`). */
export const AssetsConfig = Type.Object({
  ASSET_MAX_FILE_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 5 * 1024 * MB,
    default: 50 * MB,
    description: 'largest asset file in bytes (413 beyond, nothing stored)',
  }),
  ASSET_MAX_COUNT: Type.Integer({
    minimum: 0,
    maximum: 1_000_000_000,
    default: 0,
    description: 'most assets the library holds (403 ASSET_COUNT_LIMIT beyond); 0 = no cap',
  }),
  ASSET_MAX_INPUT_PIXELS: Type.Integer({
    minimum: 1,
    maximum: 1_000_000_000,
    default: 100_000_000,
    description: 'largest image in pixels that is decoded (413 beyond; sharp limitInputPixels)',
  }),
  ASSET_THUMBNAIL_WIDTHS: Type.String({
    default: '200,800',
    pattern: '^[0-9]{1,4}(,[0-9]{1,4}){0,5}$',
    description: 'widths of the WebP thumbnails made at upload (comma-separated)',
  }),
  ASSET_SHARP_CONCURRENCY: Type.Integer({
    minimum: 0,
    maximum: 64,
    default: 1,
    description:
      'libvips threads per image operation (0 = one per core); requests run side by side, so 1 keeps cores for them',
  }),
  ASSET_SHARP_CACHE_MB: Type.Integer({
    minimum: 0,
    maximum: 4096,
    default: 0,
    description:
      'libvips operation cache in MB (0 off: requests rarely repeat an operation, and raw image bodies then reuse buffers)',
  }),
  ASSET_IMAGE_JOBS: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: 2,
    description: 'image operations running at once in this process; more wait in line, callers taking turns',
  }),
  ASSET_IMAGE_JOBS_PER_CALLER: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 64,
      description:
        'image operations one caller (a user, the service token, delivery) runs at once; unset = half of ASSET_IMAGE_JOBS (at least 1); callers with work waiting take turns',
    }),
  ),
  ASSET_IMAGE_QUEUE_PER_CALLER: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 8,
    description: 'image operations one caller may have waiting; more answer 429 IMAGE_QUEUE_FULL with Retry-After',
  }),
  ASSET_IMAGE_TIMEOUT_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 30,
    description: 'longest one image operation may run (sharp timeout); beyond, 413 IMAGE_TIMEOUT',
  }),
  ASSET_MAX_INPUT_PAGES: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 1000,
    description:
      'most frames (GIF, WebP) or pages (TIFF, HEIF) an image may declare (413 IMAGE_TOO_MANY_PAGES); only the first is decoded',
  }),
  ASSET_PROCESS_MAX_OUTPUT_PIXELS: Type.Integer({
    minimum: 1,
    maximum: 1_000_000_000,
    default: 50_000_000,
    description:
      'pixels one /api/v1/process request may produce, all variants together (400 OUTPUT_TOO_LARGE beyond, before decoding)',
  }),
  DAM_ENFORCE_ASSET_VISIBILITY: EnvFlag(
    true,
    '1: private assets answer 404 on /dam-asset/* unless the caller holds assets:read (a session) or the service token',
  ),
  DAM_SERVICE_TOKEN: Type.Optional(
    Type.String({
      minLength: 16,
      maxLength: 512,
      description: 'bearer token of service calls (image endpoints, form-upload attach); unset = sessions only',
    }),
  ),
  ASSET_SERVICE_URL: Type.Optional(
    Type.String({
      pattern: '^https?://[^\\s]+$',
      maxLength: 500,
      description:
        "asset-processor base URL with its /api/v1 prefix, e.g. http://asset-processor:3002/api/v1: core-api reads and stores website bundle files and finds, exports and erases data subjects' files there (with DAM_SERVICE_TOKEN); unset: in this process",
    }),
  ),
  DAM_PUBLIC_BASE_URL: BaseUrl(
    'absolute prefix of the delivery URLs returned by the API; empty = relative /dam-asset/... URLs',
  ),
  ...s3Target('S3_', {
    target: 'the asset store',
    endpoint:
      'S3-compatible endpoint; set with S3_BUCKET and credentials to store assets there instead of CMS_DATA_DIR/assets',
  }),
  S3_KEY_PREFIX: KeyPrefix('key prefix inside the bucket (ends with /)'),
  S3_PART_SIZE_MB: Type.Integer({
    minimum: 5,
    maximum: 512,
    default: 5,
    description:
      'multipart upload part size in MB (5, the S3 minimum, holds the least memory per upload; larger parts mean fewer requests)',
  }),
  S3_UPLOAD_QUEUE_SIZE: Type.Integer({
    minimum: 1,
    maximum: 16,
    default: 2,
    description: 'parts uploaded at once (memory per upload ≈ part size × this)',
  }),
  ...s3Target('DAM_CDN_MIRROR_S3_', {
    target: 'the CDN mirror target',
    endpoint: 'S3-compatible endpoint of the CDN mirror target; set with the bucket and keys to enable mirror-cdn',
  }),
  DAM_CDN_MIRROR_KEY_PREFIX: KeyPrefix('key prefix of mirrored copies (ends with /)'),
  DAM_CDN_MIRROR_PUBLIC_BASE_URL: BaseUrl(
    'public address of the CDN in front of the mirror bucket; mirrored URLs are <this>/<key>',
  ),
  UPLOAD_TOKEN_SECRET: Type.Optional(
    Type.String({
      minLength: 32,
      maxLength: 512,
      description: 'HMAC key of public form upload tickets; unset = POST /public/uploads/intent answers 503',
    }),
  ),
  UPLOAD_TICKET_TTL_SECONDS: Type.Integer({
    minimum: 30,
    maximum: 86400,
    default: 900,
    description: 'lifetime of an upload ticket (PUT /public/upload-data/<ticket>)',
  }),
  UPLOAD_INTENT_RATE_LIMIT_PER_WINDOW: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 30,
    description: 'public upload intents per client address and window (429 with Retry-After beyond)',
  }),
  UPLOAD_INTENT_RATE_LIMIT_WINDOW_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86400,
    default: 900,
    description: 'window of UPLOAD_INTENT_RATE_LIMIT_PER_WINDOW',
  }),
  UPLOAD_STAGING_TTL_SECONDS: Type.Integer({
    minimum: 60,
    maximum: 7 * 86400,
    default: 7200,
    description: 'staged form upload bytes not attached within this time are removed by a job',
  }),
});
