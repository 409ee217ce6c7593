import type { Actor, ChangeActor, Tx } from '../../kernel/index.ts';

/**
 * What the asset plugin offers other plugins (container name `assetLibrary`): reading asset
 * references (the data plugin's batch `resolve-assets`), and attaching a staged public-form upload
 * to the library in the caller's transaction (in-process in the all-in-one install; the split
 * deployment calls `POST /api/v1/dam/form-uploads/attach` with `DAM_SERVICE_TOKEN` instead).
 * It collects the registry `websiteUploadRules` (the websites public form uploads are for).
 */
export interface AssetRef {
  id: string;
  /** Stable public reference (`/public/assets/:uuid`). */
  uuid: string;
  path: string;
  folder: string;
  filename: string;
  mimeType: string;
  size: number;
  visibility: 'public' | 'private';
  /** Delivery URL (`/dam-asset/...`). */
  url: string;
  thumbnailUrl: string | null;
}

/** A file of a folder (`folderFiles`): its reference plus what tells one version from the next. */
export interface FolderFile extends AssetRef {
  /** SHA-256 of the stored bytes (hex): the same bytes, the same hash. */
  sha256: string;
  version: number;
  updatedAt: string;
}

export interface AttachFormUploadInput {
  uploadId: string;
  folder: string;
  visibility: 'public' | 'private';
}

/** A staged public-form upload, as the form submit needs it before attaching. */
export interface StagedUpload {
  uploadId: string;
  websiteId: string;
  /** The form field the intent asked for. */
  fieldId: string;
  /** The website's target folder and visibility, recorded at the intent. */
  folder: string;
  visibility: 'public' | 'private';
}

/** A file another plugin puts into the library (a design import's images). */
export interface StoreFileInput {
  bytes: Buffer;
  folder: string;
  filename: string;
  visibility: 'public' | 'private';
  /** Who stores it (record-change announcements and `createdBy`). */
  actor: ChangeActor;
}

export interface AssetLibrary {
  /** Assets by id, uuid or path; unknown references are simply absent from the map. */
  resolve(references: readonly string[], trx?: Tx): Promise<Map<string, AssetRef>>;
  /**
   * The references among `references` (ids, uuids or paths) that `actor` may put in an asset field:
   * existing files the actor can read (`assets:read`; the system actor reads every file). In the split
   * deployment the asset service is asked, where the library lives.
   */
  referable(references: readonly string[], actor: Actor, trx?: Tx): Promise<Set<string>>;
  /**
   * Moves a staged upload into the library. Rejects with 404 UPLOAD_NOT_FOUND (unknown, expired or
   * already used) or 400 when the staged file does not match the settings. When `trx` rolls back,
   * no asset row remains and the stored file is removed.
   */
  attachFormUpload(input: AttachFormUploadInput, trx?: Tx): Promise<AssetRef>;
  /** A staged upload that can still be attached (staged, not attached, not expired), else undefined. */
  stagedUpload(uploadId: string, trx?: Tx): Promise<StagedUpload | undefined>;
  /**
   * Stores a new file under the library's rules (size, type sniffing, path rules, ASSET_MAX_COUNT):
   * 409 ASSET_EXISTS when the path is taken, 413 beyond the size. The caller checks `assets:upload`.
   * When `trx` rolls back, no asset row remains and the stored file is removed. In the split
   * deployment the file goes to the asset service (outside `trx`).
   */
  storeFile(input: StoreFileInput, trx?: Tx): Promise<AssetRef>;
  /**
   * Copies a file of the server's disk into the library at `path` (folder and name, e.g.
   * `products/shoe.jpg`) with the upload's checks (size, type sniffing, path rules), in the caller's
   * transaction (the stored bytes are removed when it rolls back). A file already at `path` is
   * answered as it is, so an import run again (or resumed) never stores a file twice. The migration
   * plugin copies Pimcore's assets this way. In the split deployment the asset service stores it
   * (outside the caller's transaction; a file left by a rolled-back batch is found again by path).
   */
  importFile(input: ImportFileInput, trx?: Tx): Promise<{ id: string; path: string }>;
  /**
   * Every file in `folder` and its subfolders (library path without a leading slash, '' the root),
   * ordered by path, at most `limit` (default 20,000; `truncated` says when more exist). A folder
   * that does not exist has no files. In the split deployment the asset service is asked
   * (`GET /api/v1/dam/folder-files`).
   */
  folderFiles(folder: string, limit?: number): Promise<{ files: FolderFile[]; truncated: boolean }>;
  /**
   * The bytes of one file; 404 ASSET_NOT_FOUND when it is gone, 413 FILE_TOO_LARGE past `maxBytes`
   * (nothing more is read). In the split deployment read over `/api/v1/dam/bundle-files/:id`.
   */
  readFile(id: string, maxBytes: number): Promise<Buffer>;
}

export interface ImportFileInput {
  /** An absolute path on this server (the caller checked it lies in its own folder). */
  file: string;
  path: string;
  visibility: 'public' | 'private';
  actor: ChangeActor;
}

/** A website's upload rules for public forms (`settings.uploads`), numbers already clamped. */
export interface WebsiteUploadSettings {
  enabled: boolean;
  /** Content-checked types only, e.g. `image/png`, `application/pdf`. */
  allowedTypes: string[];
  maxFileBytes: number;
  maxFilesPerSubmit: number;
  dailyBytes: number;
  /** Target folder of attached files. */
  folder: string;
  /** `private` unless the administrator explicitly allowed a public folder. */
  visibility: 'private' | 'public';
}

/**
 * An item of the registry `websiteUploadRules`: a plugin that holds websites (the content plugin).
 * Public form uploads find the website of an intent and its rules here; public form submits read
 * `maxFilesPerSubmit`. Without a contributor there are no websites (uploads answer 404).
 */
export interface WebsiteUploadRules {
  /** The website whose root path is the first segment of `path`, or whose domain is `host`. */
  findWebsite(by: {
    id?: string;
    host?: string;
    path?: string;
  }): Promise<{ id: string; name: string; rootPath: string } | undefined>;
  /** Undefined for a website this source does not hold. */
  uploadSettings(websiteId: string): Promise<WebsiteUploadSettings | undefined>;
}

declare module '../../kernel/index.ts' {
  interface PluginServices {
    assetLibrary: AssetLibrary;
  }
  interface PluginContributions {
    websiteUploadRules: WebsiteUploadRules;
  }
}
