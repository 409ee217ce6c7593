import type {
  GetObjectCommandOutput,
  HeadObjectCommandOutput,
  ListObjectsV2CommandOutput,
  S3Client,
} from '@aws-sdk/client-s3';
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

type Sdk = typeof import('@aws-sdk/client-s3');
type LibStorage = typeof import('@aws-sdk/lib-storage');

/**
 * The AWS SDK, imported when the first S3 store is used: a process without S3 configured never loads
 * it (it was a visible part of every start), and one with S3 pays for it once.
 */
let sdk: Sdk | undefined;
let libStorage: LibStorage | undefined;
let loading: Promise<void> | undefined;
const loadSdk = () =>
  (loading ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]).then(([s3, lib]) => {
    sdk = s3;
    libStorage = lib;
  }));

/** True for an error the store answered (the SDK is loaded once any store call ran). */
const isServiceError = (err: unknown): err is InstanceType<Sdk['S3ServiceException']> =>
  sdk !== undefined && err instanceof sdk.S3ServiceException;

/** The store cannot be reached or answers 5xx: not the caller's fault, and a retry may help. */
function storageError(err: unknown): unknown {
  const status = isServiceError(err) ? err.$metadata?.httpStatusCode : undefined;
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
  isServiceError(err) && (err.$metadata?.httpStatusCode === 404 || err.name === 'NoSuchKey' || err.name === 'NotFound');

/**
 * Any S3-compatible store through the AWS SDK. Uploads go through `lib-storage` (multipart above one
 * part, a bounded number of parts in flight), downloads are the SDK's response stream.
 */
export class S3Storage implements ObjectStorage {
  private client: S3Client | undefined;
  private closed = false;
  constructor(private readonly s: S3Settings) {}

  /** The SDK client, made on first use (with the SDK's import). */
  private async sdkClient(): Promise<{ client: S3Client; sdk: Sdk; lib: LibStorage }> {
    await loadSdk();
    this.client ??= new sdk!.S3Client({
      endpoint: this.s.endpoint,
      region: this.s.region,
      forcePathStyle: this.s.forcePathStyle,
      credentials: { accessKeyId: this.s.accessKeyId, secretAccessKey: this.s.secretAccessKey },
      // Checksums on every request are optional for S3-compatible stores that predate them.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    if (this.closed) this.client.destroy();
    return { client: this.client, sdk: sdk!, lib: libStorage! };
  }

  info(): StorageInfo {
    const { endpoint, bucket, region, forcePathStyle, partSizeBytes, queueSize, prefix } = this.s;
    return { driver: 's3', endpoint, bucket, region, forcePathStyle, partSizeBytes, queueSize, prefix };
  }

  /** Every call to the store: unreachable or failing stores answer 503 instead of 500. */
  // The SDK's command types do not unify across commands; each caller names the output it gets.
  private async send<T = unknown>(command: (sdk: Sdk) => object): Promise<T> {
    const { client, sdk } = await this.sdkClient();
    const built = command(sdk);
    try {
      return (await client.send(built as never)) as T;
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
      await this.send((sdk) => new sdk.HeadBucketCommand({ Bucket: this.s.bucket }));
      return { created: false };
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
    await this.send((sdk) => new sdk.CreateBucketCommand({ Bucket: this.s.bucket }));
    return { created: true };
  }

  async put(key: string, body: Readable, opts: PutOptions = {}): Promise<void> {
    const { client, lib } = await this.sdkClient();
    const upload = new lib.Upload({
      client,
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
        (sdk) =>
          new sdk.GetObjectCommand({
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
        (sdk) => new sdk.HeadObjectCommand({ Bucket: this.s.bucket, Key: this.key(key) }),
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
    await this.send(
      (sdk) => new sdk.CopyObjectCommand({ Bucket: this.s.bucket, Key: this.key(toKey), CopySource: source }),
    );
  }

  async delete(key: string): Promise<void> {
    await this.send((sdk) => new sdk.DeleteObjectCommand({ Bucket: this.s.bucket, Key: this.key(key) }));
  }

  async deletePrefix(prefix: string): Promise<number> {
    const keys = await this.list(prefix);
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      await this.send(
        (sdk) =>
          new sdk.DeleteObjectsCommand({
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
        (sdk) =>
          new sdk.ListObjectsV2Command({
            Bucket: this.s.bucket,
            Prefix: this.s.prefix + prefix,
            ContinuationToken: token,
          }),
      );
      for (const item of page.Contents ?? []) if (item.Key) out.push(item.Key.slice(this.s.prefix.length));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out.sort();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.client?.destroy();
  }
}
