/** One row of `assets`. */
export interface AssetRow {
  id: string;
  uuid: string;
  path: string;
  folder: string;
  filename: string;
  mime_type: string;
  size: number;
  sha256: string;
  visibility: 'public' | 'private';
  metadata: Record<string, unknown>;
  width: number | null;
  height: number | null;
  thumbnails: number[];
  version: number;
  storage_key: string;
  created_by: string | null;
  /** The public form upload this file came from (set by the form attach only), else null. */
  form_upload_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export type Visibility = AssetRow['visibility'];

/** The fields every JSON form of an asset starts with (API answers, the `assetLibrary` port, events). */
export const assetIdentity = (row: AssetRow) => ({
  id: row.id,
  uuid: row.uuid,
  path: row.path,
  folder: row.folder,
  filename: row.filename,
  mimeType: row.mime_type,
  size: Number(row.size),
  visibility: row.visibility,
});

/** Thumbnail widths, smallest first. */
export const thumbnailWidths = (row: Pick<AssetRow, 'thumbnails'>) => [...row.thumbnails].sort((a, b) => a - b);

/** Storage keys: made from the id and version only, never from user text. */
export const keys = {
  original: (id: string, version: number) => `a/${id}/v${version}`,
  thumbnail: (id: string, version: number, width: number) => `t/${id}/v${version}/${width}.webp`,
  derived: (id: string, version: number, name: string) => `d/${id}/v${version}/${name}`,
  staged: (uploadId: string) => `s/${uploadId}`,
  /** Everything stored for an asset (all versions, thumbnails, derived files). */
  prefixes: (id: string) => [`a/${id}/`, `t/${id}/`, `d/${id}/`],
  /** Everything stored for one version. */
  versionPrefixes: (id: string, version: number) => [
    `a/${id}/v${version}`,
    `t/${id}/v${version}/`,
    `d/${id}/v${version}/`,
  ],
};
