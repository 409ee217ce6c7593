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

export interface AssetLibrary {
  /** Assets by id, uuid or path; unknown references are simply absent from the map. */
  resolve(references: readonly string[], trx?: Tx): Promise<Map<string, AssetRef>>;
  /**
   * Moves a staged upload into the library. Rejects with 404 UPLOAD_NOT_FOUND (unknown, expired or
   * already used) or 400 when the staged file does not match the settings. When `trx` rolls back,
   * no asset row remains and the stored file is removed.
   */
  attachFormUpload(input: AttachFormUploadInput, trx?: Tx): Promise<AssetRef>;
}

declare module '../../kernel/index.ts' {
  interface PluginServices {
    assetLibrary: AssetLibrary;
  }
}
