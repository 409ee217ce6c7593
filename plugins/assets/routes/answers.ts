import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { FITS, OUTPUT_FORMATS } from '../services/images.ts';
import { Visibility } from './schemas.ts';

/*
 * The answers of the asset routes. Fastify serialises each answer by these schemas, so a column
 * that is not named here (the storage key, who uploaded it, a staged file's place) never reaches a
 * client.
 */

const Url = Type.String();
const NullableUrl = Type.Union([Type.String(), Type.Null()]);
const Pixels = Type.Union([Type.Integer(), Type.Null()]);

/** What every JSON form of an asset starts with (the `assetLibrary` port's `AssetRef`). */
const assetRefFields = {
  id: Type.String(),
  uuid: Type.String({ description: 'stable public reference (`/public/assets/:uuid`)' }),
  path: Type.String(),
  folder: Type.String(),
  filename: Type.String(),
  mimeType: Type.String(),
  size: Type.Integer(),
  visibility: Visibility,
  url: Type.String({ description: 'delivery URL (`/dam-asset/...?v=<version>`)' }),
  thumbnailUrl: NullableUrl,
};

export const AssetRef = Type.Object(assetRefFields);

/** The asset JSON of `/api/v1/dam/*` (README, "Asset JSON"). */
export const Asset = Type.Object({
  ...assetRefFields,
  name: Type.String({ description: 'the same as `filename`' }),
  type: Type.String({ description: 'the same as `mimeType`' }),
  metadata: Type.Object({}, { additionalProperties: true }),
  width: Pixels,
  height: Pixels,
  version: Type.Integer(),
  sha256: Type.String({ description: 'hex SHA-256 of the stored bytes' }),
  thumbnails: Type.Array(Type.Object({ width: Type.Integer(), url: Url })),
  publicUrl: Url,
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const AssetList = Type.Object({ assets: Type.Array(Asset), total: Type.Integer() });

export const DeletedAsset = Type.Object({ deleted: Type.Boolean(), id: Type.String(), path: Type.String() });

export const AssetUrl = Type.Object({
  path: Type.String(),
  exists: Type.Boolean(),
  url: NullableUrl,
  thumbnailUrl: NullableUrl,
  visibility: Type.Union([Visibility, Type.Null()]),
});
export const AssetUrls = Type.Object({ results: Type.Array(AssetUrl) });

export const Existence = Type.Object({ path: Type.String(), exists: Type.Boolean() });
export const Existences = Type.Object({ results: Type.Array(Existence) });

export const RegeneratedThumbnails = Type.Object({
  results: Type.Array(
    Type.Object({
      id: Type.String(),
      status: Type.Union([Type.Literal('regenerated'), Type.Literal('not_found'), Type.Literal('not_an_image')]),
    }),
  ),
});

export const Folder = Type.Object({ path: Type.String(), name: Type.String(), createdAt: Type.String() });
export const FolderList = Type.Object({ folders: Type.Array(Folder) });
export const CreatedFolder = Type.Object({ path: Type.String(), created: Type.Boolean() });
export const DeletedFolder = Type.Object({ path: Type.String(), deletedAssets: Type.Integer() });

export const Preset = Type.Object({
  name: Type.String(),
  width: Pixels,
  height: Pixels,
  fit: Type.Union(FITS.map((f) => Type.Literal(f))),
  format: Type.Union([...OUTPUT_FORMATS, 'auto', 'original'].map((f) => Type.Literal(f))),
  quality: Type.Integer(),
});
export const PresetList = Type.Object({ presets: Type.Array(Preset) });
export const Deleted = Type.Object({ deleted: Type.Boolean() });

/**
 * Non-secret storage settings: the driver and, for S3, endpoint, bucket, region, part size (never a key;
 * for the filesystem store no path: where the server keeps files is none of a viewer's business).
 */
const StorageInfo = Type.Union([
  Type.Object({ driver: Type.Literal('filesystem') }),
  Type.Object({
    driver: Type.Literal('s3'),
    endpoint: Type.String(),
    bucket: Type.String(),
    region: Type.String(),
    forcePathStyle: Type.Boolean(),
    partSizeBytes: Type.Integer(),
    queueSize: Type.Integer(),
    prefix: Type.String(),
  }),
]);
export const StorageSettings = Type.Object({
  storage: StorageInfo,
  limits: Type.Object({ maxFileBytes: Type.Integer(), maxInputPixels: Type.Integer() }),
  thumbnailWidths: Type.Array(Type.Integer()),
  enforceVisibility: Type.Boolean(),
});
export const EnsuredBucket = Type.Object({
  created: Type.Boolean(),
  policy: Type.Literal('private'),
  storage: StorageInfo,
});

export const PublicAsset = Type.Object({
  uuid: Type.String(),
  url: Url,
  thumbnailUrl: NullableUrl,
  filename: Type.String(),
  mimeType: Type.String(),
  size: Type.Integer(),
  width: Pixels,
  height: Pixels,
});

export const Mirrored = Type.Object({
  id: Type.String(),
  key: Type.String({ description: 'the key on the CDN mirror target' }),
  url: NullableUrl,
  version: Type.Integer(),
});
export const MirrorStatus = Type.Object({
  configured: Type.Boolean(),
  results: Type.Array(Type.Object({ path: Type.String(), mirrored: Type.Boolean(), url: NullableUrl })),
});

export const UploadIntent = Type.Object({
  uploadId: Type.String(),
  uploadUrl: Type.String({ description: 'where to PUT the bytes; the ticket is the last segment' }),
  expiresIn: Type.Integer({ description: 'seconds' }),
  maxBytes: Type.Integer(),
});
export const ReceivedUpload = Type.Object({ uploadId: Type.String(), size: Type.Integer(), mimeType: Type.String() });

export const BundleFiles = Type.Object({
  assets: Type.Array(
    Type.Object({
      id: Type.String(),
      uuid: Type.Optional(Type.String()),
      path: Type.String(),
      url: Type.Optional(Type.String()),
      filename: Type.String(),
      mimeType: Type.String(),
      size: Type.Integer(),
      visibility: Visibility,
    }),
  ),
});
/** `GET /api/v1/dam/folder-files`: the files of a folder and below, by path. */
export const FolderFiles = Type.Object({
  files: Type.Array(
    Type.Object({
      id: Type.String(),
      uuid: Type.String(),
      path: Type.String(),
      folder: Type.String(),
      filename: Type.String(),
      mimeType: Type.String(),
      size: Type.Integer(),
      visibility: Visibility,
      url: Type.String(),
      thumbnailUrl: Type.Union([Type.String(), Type.Null()]),
      sha256: Type.String(),
      version: Type.Integer(),
      updatedAt: Type.String({ format: 'date-time' }),
    }),
  ),
  truncated: Type.Boolean(),
});
export const StoredBundleFile = Type.Object({ id: Type.String(), path: Type.String() });

/** A binary answer: the bytes as stored or made, passed through by Fastify without serialising. */
export const Bytes = (description: string) =>
  Type.Unsafe<Buffer | Readable>({ type: 'string', format: 'binary', description });

const ImageFormat = Type.String({ description: 'the format sharp read or wrote (`jpeg`, `png`, `webp`, ...)' });
/** `POST /api/v1/process?mode=variants`: each width as base64. */
export const ImageVariants = Type.Object({
  source: Type.Object({ width: Type.Integer(), height: Type.Integer(), format: ImageFormat }),
  variants: Type.Array(
    Type.Object({
      width: Type.Integer(),
      height: Type.Integer(),
      format: ImageFormat,
      size: Type.Integer(),
      data: Type.String({ description: 'base64' }),
    }),
  ),
});

export const ImageMetadata = Type.Object({
  format: ImageFormat,
  width: Type.Integer(),
  height: Type.Integer(),
  space: Type.Union([Type.String(), Type.Null()]),
  channels: Type.Union([Type.Integer(), Type.Null()]),
  density: Type.Union([Type.Number(), Type.Null()]),
  hasAlpha: Type.Boolean(),
  orientation: Type.Union([Type.Integer(), Type.Null()]),
  pages: Type.Integer(),
  camera: Type.Object({ make: Type.Unknown(), model: Type.Unknown(), lens: Type.Unknown() }),
  exif: Type.Object({}, { additionalProperties: true, description: 'EXIF tags by name' }),
  gps: Type.Union([
    Type.Object({ latitude: Type.Number(), longitude: Type.Number(), altitude: Type.Optional(Type.Number()) }),
    Type.Null(),
  ]),
  iptc: Type.Object({}, { additionalProperties: true, description: 'IPTC fields by name' }),
  hasIcc: Type.Boolean(),
});

/**
 * A non-JSON answer of `mediaType` (a file or a stream the handler sends as it is). The same shape as
 * the kernel's `nonJsonAnswer`, typed for the buffers and streams these routes send.
 */
export const nonJsonAnswer = (mediaType: string, description: string) => ({
  description,
  content: { [mediaType]: { schema: Bytes(description) } },
});

/** A redirect or an answer without a body (the kernel's `emptyAnswer`: a `null` schema). */
export const emptyAnswer = (description: string) => Type.Unsafe<undefined>({ type: 'null', description });
/** A person's files, as the data-subject plugin's `dataSubjectSources` item answers (its ports.ts). */
export const DataSubjectFindings = Type.Object({
  kind: Type.String(),
  count: Type.Integer(),
  items: Type.Array(
    Type.Object({
      id: Type.String(),
      at: Type.String(),
      label: Type.String(),
      matched: Type.Array(Type.String()),
      files: Type.Optional(Type.Array(Type.String())),
      refs: Type.Optional(Type.Array(Type.String(), { description: "the file's id, uuid and path" })),
    }),
  ),
  linkedFiles: Type.Optional(Type.Array(Type.String())),
});
export const DataSubjectErasure = Type.Object({
  kind: Type.String(),
  erased: Type.Integer(),
  kept: Type.Array(
    Type.Object({
      id: Type.String(),
      label: Type.String(),
      reason: Type.String(),
      refs: Type.Optional(Type.Array(Type.String())),
    }),
  ),
  reported: Type.Optional(
    Type.Array(Type.Object({ id: Type.String(), label: Type.String(), reason: Type.String() }), {
      description: 'files found but not erased by rule (staff uploads, metadata only)',
    }),
  ),
});
