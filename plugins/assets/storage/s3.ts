import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
  type GetObjectCommandOutput,
  type HeadObjectCommandOutput,
  type ListObjectsV2CommandOutput,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { HttpError } from '../../../kernel/index.ts';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import {
  assertStorageKey,
  assertStoragePrefix,
  type ByteRange,
  type ObjectStorage,
  type PutOptions,
  type StorageInfo,
  type StoredObjectInfo,
} from './object-storage.ts';

export interface S3Settings {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
  /** Parts of a multipart upload; the memory one upload holds is about partSize × queueSize. */
  partSizeBytes: number;
  queueSize: number;
  /** Optional key prefix inside the bucket. */
  prefix: string;
}

/** The store cannot be reached or answers 5xx: not the caller's fault, and a retry may help. */
function storageError(err: unknown): unknown {
  const status = err instanceof S3ServiceException ? err.$metadata?.httpStatusCode : undefined;
  const code = (err as { code?: string }).code;
  if (
    (status !== undefined && status >= 500) ||
    (status === undefined &&
      (code === 'ECONNREFUSED' ||
        code === 'ECONNRESET' ||
        code === 'ETIMEDOUT' ||
        code === 'EHOSTUNREACH' ||
        code === 'ENOTFOUND'))
  ) {
    return new HttpError(503, 'STORAGE_UNAVAILABLE', 'The asset store is unreachable; retry shortly', undefined, {
      'retry-after': '5',
    });
  }
  return err;
}

const isMissing = (err: unknown) =>
  err instanceof S3ServiceException &&
  (err.$metadata?.httpStatusCode === 404 || err.name === 'NoSuchKey' || err.name === 'NotFound');

/**
 * Any S3-compatible store through the AWS SDK. Uploads go through `lib-storage` (multipart above one
 * part, a bounded number of parts in flight), downloads are the SDK's response stream.
 */
export class S3Storage implements ObjectStorage {
  private readonly client: S3Client;
  constructor(private readonly s: S3Settings) {
    this.client = new S3Client({
      endpoint: s.endpoint,
      region: s.region,
      forcePathStyle: s.forcePathStyle,
      credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
      // Checksums on every request are optional for S3-compatible stores that predate them.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  info(): StorageInfo {
    const { endpoint, bucket, region, forcePathStyle, partSizeBytes, queueSize, prefix } = this.s;
    return { driver: 's3', endpoint, bucket, region, forcePathStyle, partSizeBytes, queueSize, prefix };
  }

  /** Every call to the store: unreachable or failing stores answer 503 instead of 500. */
  // The SDK's command types do not unify across commands; each caller names the output it gets.
  private async send<T = unknown>(command: object): Promise<T> {
    try {
      return (await this.client.send(command as never)) as T;
    } catch (err) {
      throw storageError(err);
    }
  }

  private key(key: string): string {
    assertStorageKey(key);
    return this.s.prefix + key;
  }

  async ensureBucket(): Promise<{ created: boolean }> {
    try {
      await this.send(new HeadBucketCommand({ Bucket: this.s.bucket }));
      return { created: false };
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
    await this.send(new CreateBucketCommand({ Bucket: this.s.bucket }));
    return { created: true };
  }

  async put(key: string, body: Readable, opts: PutOptions = {}): Promise<void> {
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.s.bucket, Key: this.key(key), Body: body, ContentType: opts.contentType },
      partSize: this.s.partSizeBytes,
      queueSize: this.s.queueSize,
      leavePartsOnError: false,
    });
    await upload.done().catch((err) => {
      throw storageError(err);
    });
  }

  async putFile(key: string, filePath: string, opts: PutOptions = {}): Promise<void> {
    await this.put(key, createReadStream(filePath), opts);
  }

  async get(key: string, range?: ByteRange): Promise<{ body: Readable; info: StoredObjectInfo } | null> {
    try {
      const out = await this.send<GetObjectCommandOutput>(
        new GetObjectCommand({
          Bucket: this.s.bucket,
          Key: this.key(key),
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      // The full size: from Content-Range on a ranged answer, else Content-Length.
      const total = out.ContentRange ? Number(out.ContentRange.split('/')[1]) : Number(out.ContentLength ?? 0);
      return {
        body: out.Body as Readable,
        info: { size: total, lastModified: out.LastModified ?? new Date(0), contentType: out.ContentType },
      };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async head(key: string): Promise<StoredObjectInfo | null> {
    try {
      const out = await this.send<HeadObjectCommandOutput>(
        new HeadObjectCommand({ Bucket: this.s.bucket, Key: this.key(key) }),
      );
      return {
        size: Number(out.ContentLength ?? 0),
        lastModified: out.LastModified ?? new Date(0),
        contentType: out.ContentType,
      };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  localPath(): string | null {
    return null;
  }

  async copy(fromKey: string, toKey: string): Promise<void> {
    const source = `${this.s.bucket}/${this.key(fromKey).split('/').map(encodeURIComponent).join('/')}`;
    await this.send(new CopyObjectCommand({ Bucket: this.s.bucket, Key: this.key(toKey), CopySource: source }));
  }

  async delete(key: string): Promise<void> {
    await this.send(new DeleteObjectCommand({ Bucket: this.s.bucket, Key: this.key(key) }));
  }

  async deletePrefix(prefix: string): Promise<number> {
    const keys = await this.list(prefix);
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      await this.send(
        new DeleteObjectsCommand({
          Bucket: this.s.bucket,
          Delete: { Objects: batch.map((k) => ({ Key: this.key(k) })), Quiet: true },
        }),
      );
    }
    return keys.length;
  }

  async list(prefix: string): Promise<string[]> {
    assertStoragePrefix(prefix);
    const out: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.send<ListObjectsV2CommandOutput>(
        new ListObjectsV2Command({ Bucket: this.s.bucket, Prefix: this.s.prefix + prefix, ContinuationToken: token }),
      );
      for (const item of page.Contents ?? []) if (item.Key) out.push(item.Key.slice(this.s.prefix.length));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out.sort();
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
