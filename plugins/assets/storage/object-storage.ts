import type { Readable } from 'node:stream';

/** What one stored object looks like without its bytes. */
export interface StoredObjectInfo {
  size: number;
  lastModified: Date;
  contentType?: string;
}

/** Bytes `start..end` inclusive, as in an HTTP Range. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface PutOptions {
  contentType?: string;
  /** Known length, when the caller has it (lets S3 skip multipart for small files). */
  size?: number;
}

/** Non-secret settings of the store, as `GET /api/v1/dam/info` shows them (never a key, never a server path). */
export type StorageInfo =
  | { driver: 'filesystem' }
  | {
      driver: 's3';
      endpoint: string;
      bucket: string;
      region: string;
      forcePathStyle: boolean;
      partSizeBytes: number;
      queueSize: number;
      prefix: string;
    };

/**
 * Where asset bytes live. Keys are slash-separated, made by this plugin only (never user text), and
 * streams go both ways: nothing here ever holds a whole file in memory.
 */
export interface ObjectStorage {
  info(): StorageInfo;
  /** Creates the bucket (or folder) when missing; true when it had to be created. */
  ensureBucket(): Promise<{ created: boolean }>;
  put(key: string, body: Readable, opts?: PutOptions): Promise<void>;
  /** Stores a local file; the file is left where it is. */
  putFile(key: string, filePath: string, opts?: PutOptions): Promise<void>;
  /** The object's bytes (or a range of them), or null when the key is absent. */
  get(key: string, range?: ByteRange): Promise<{ body: Readable; info: StoredObjectInfo } | null>;
  head(key: string): Promise<StoredObjectInfo | null>;
  /** A path the local process can read directly (filesystem store), else null. */
  localPath(key: string): string | null;
  copy(fromKey: string, toKey: string): Promise<void>;
  /** Removing an absent key is not an error. */
  delete(key: string): Promise<void>;
  /** Removes every key that starts with `prefix`; returns how many. */
  deletePrefix(prefix: string): Promise<number>;
  list(prefix: string): Promise<string[]>;
  close(): Promise<void>;
}

const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/** Keys are built by the plugin, but a wrong one must never escape the store's root. */
export function assertStorageKey(key: string): void {
  if (key.length > 512 || !KEY.test(key) || key.split('/').some((s) => s === '..' || s === '.')) {
    throw new Error(`invalid storage key "${key.slice(0, 80)}"`);
  }
}

export function assertStoragePrefix(prefix: string): void {
  assertStorageKey(prefix.replace(/\/$/, ''));
}
