import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../../kernel/index.ts';
import type { PublishRunnerSettings } from './settings.ts';

/** Where a finished build goes; the build itself is always made in a local staging folder first. */
export interface BuildTarget {
  /** Puts the staged build in place; answers where it is (the job's `output`). */
  commit(staging: string, websiteId: string): Promise<string>;
}

/** `<dir>/<websiteId>/`, swapped whole by two renames: readers see the old build or the new one. */
export function folderTarget(dir: string): BuildTarget {
  return {
    async commit(staging, websiteId) {
      const final = path.join(dir, websiteId);
      const old = path.join(dir, `.old-${websiteId}-${process.pid}-${Date.now()}`);
      const hadOne = await fs.rename(final, old).then(
        () => true,
        (err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return false;
          throw err;
        },
      );
      await fs.rename(staging, final);
      if (hadOne) await fs.rm(old, { recursive: true, force: true });
      return final;
    },
  };
}

const CONTENT_TYPES = new Map([
  ['.html', 'text/html; charset=utf-8'],
  ['.css', 'text/css; charset=utf-8'],
  ['.js', 'text/javascript; charset=utf-8'],
  ['.json', 'application/json'],
]);

/** Every file under a folder, as paths relative to it with `/`. */
async function filesUnder(root: string): Promise<string[]> {
  const entries = await fs.readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

/** `<prefix><websiteId>/<file>` in a bucket: uploads the build, then removes keys it no longer has. */
export function bucketTarget(s: PublishRunnerSettings, log: Logger): BuildTarget {
  return {
    async commit(staging, websiteId) {
      const sdk = await import('@aws-sdk/client-s3');
      const client = new sdk.S3Client({
        endpoint: s.PUBLISH_S3_ENDPOINT,
        region: s.PUBLISH_S3_REGION,
        forcePathStyle: s.PUBLISH_S3_FORCE_PATH_STYLE,
        // Checksums on every request are optional for S3-compatible stores that predate them (which
        // would otherwise store the chunked upload's framing as the file).
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        credentials:
          s.PUBLISH_S3_ACCESS_KEY_ID && s.PUBLISH_S3_SECRET_ACCESS_KEY
            ? { accessKeyId: s.PUBLISH_S3_ACCESS_KEY_ID, secretAccessKey: s.PUBLISH_S3_SECRET_ACCESS_KEY }
            : undefined,
      });
      const bucket = s.PUBLISH_S3_BUCKET!;
      const prefix = `${s.PUBLISH_S3_PREFIX}${websiteId}/`;
      try {
        const files = await filesUnder(staging);
        for (const file of files) {
          const full = path.join(staging, file);
          const { size } = await fs.stat(full);
          await client.send(
            new sdk.PutObjectCommand({
              Bucket: bucket,
              Key: prefix + file,
              Body: createReadStream(full),
              ContentLength: size,
              ContentType: CONTENT_TYPES.get(path.extname(file)) ?? 'application/octet-stream',
            }),
          );
        }
        const kept = new Set(files.map((f) => prefix + f));
        let token: string | undefined;
        do {
          const page = await client.send(
            new sdk.ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
          );
          for (const item of page.Contents ?? [])
            if (item.Key && !kept.has(item.Key)) {
              await client.send(new sdk.DeleteObjectCommand({ Bucket: bucket, Key: item.Key }));
              log.debug({ key: item.Key }, 'publish runner: removed a key the build no longer has');
            }
          token = page.IsTruncated ? page.NextContinuationToken : undefined;
        } while (token);
        return `s3://${bucket}/${prefix}`;
      } finally {
        client.destroy();
      }
    },
  };
}
