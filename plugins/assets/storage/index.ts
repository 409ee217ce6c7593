import path from 'node:path';
import { FilesystemStorage } from './filesystem.ts';
import type { ObjectStorage } from './object-storage.ts';
import { S3Storage } from './s3.ts';
import type { Static } from '@sinclair/typebox';
import type { AssetsConfig } from '../config.ts';

export type { ObjectStorage } from './object-storage.ts';

/** S3 when endpoint, bucket and both keys are set; otherwise files under `<dataDir>/assets`. */
export function createStorage(cfg: Static<typeof AssetsConfig>, dataDir: string): ObjectStorage {
  const s3 = [cfg.S3_ENDPOINT, cfg.S3_BUCKET, cfg.S3_ACCESS_KEY_ID, cfg.S3_SECRET_ACCESS_KEY];
  if (s3.some(Boolean) && !s3.every(Boolean)) {
    throw new Error(
      'assets: S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together or not at all',
    );
  }
  if (!cfg.S3_ENDPOINT) return new FilesystemStorage(path.resolve(dataDir, 'assets'));
  return new S3Storage({
    endpoint: cfg.S3_ENDPOINT,
    bucket: cfg.S3_BUCKET!,
    region: cfg.S3_REGION,
    accessKeyId: cfg.S3_ACCESS_KEY_ID!,
    secretAccessKey: cfg.S3_SECRET_ACCESS_KEY!,
    forcePathStyle: cfg.S3_FORCE_PATH_STYLE,
    partSizeBytes: cfg.S3_PART_SIZE_MB * 1024 * 1024,
    queueSize: cfg.S3_UPLOAD_QUEUE_SIZE,
    prefix: cfg.S3_KEY_PREFIX,
  });
}
