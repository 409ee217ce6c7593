import type { Tx } from '../../kernel/index.ts';

/**
 * What the asset plugin offers other plugins (container name `assetLibrary`): reading asset
 * references (the data plugin's batch `resolve-assets`), and attaching a staged public-form upload
 * to the library in the caller's transaction (in-process in the all-in-one install; the split
 * deployment calls `POST /api/v1/dam/form-uploads/attach` with `DAM_SERVICE_TOKEN` instead).
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

export interface AssetLibrary {
  /** Assets by id, uuid or path; unknown references are simply absent from the map. */
  resolve(references: readonly string[], trx?: Tx): Promise<Map<string, AssetRef>>;
  /**
   * Moves a staged upload into the library. Rejects with 404 UPLOAD_NOT_FOUND (unknown, expired or
   * already used) or 400 when the staged file does not match the settings. When `trx` rolls back,
   * no asset row remains and the stored file is removed.
   */
  attachFormUpload(input: AttachFormUploadInput, trx?: Tx): Promise<AssetRef>;
  /** A staged upload that can still be attached (staged, not attached, not expired), else undefined. */
  stagedUpload(uploadId: string, trx?: Tx): Promise<StagedUpload | undefined>;
}

declare module '../../kernel/index.ts' {
  interface PluginServices {
    assetLibrary: AssetLibrary;
  }
}
