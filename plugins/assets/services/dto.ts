import type { AssetRef } from '../ports.ts';
import { assetIdentity, thumbnailWidths, type AssetRow } from '../model.ts';
import { encodePath } from './paths.ts';

/** Builds the URLs of an asset; `base` is DAM_PUBLIC_BASE_URL ('' = relative). */
export class AssetUrls {
  constructor(private readonly base: string) {}

  /** `?v=<version>` makes each version its own URL, so a one-year immutable cache never serves an old one. */
  delivery(row: Pick<AssetRow, 'path' | 'version'>): string {
    return `${this.base}/dam-asset/${encodePath(row.path)}?v=${row.version}`;
  }

  thumbnail(row: Pick<AssetRow, 'path' | 'version'>, width: number): string {
    return `${this.base}/dam-asset/${encodePath(row.path)}?thumb=${width}&v=${row.version}`;
  }

  publicReference(row: Pick<AssetRow, 'uuid'>): string {
    return `${this.base}/public/assets/${row.uuid}`;
  }

  ref(row: AssetRow): AssetRef {
    const thumbs = thumbnailWidths(row);
    return {
      ...assetIdentity(row),
      url: this.delivery(row),
      thumbnailUrl: thumbs.length ? this.thumbnail(row, thumbs[0]) : null,
    };
  }

  dto(row: AssetRow) {
    return {
      ...this.ref(row),
      name: row.filename,
      type: row.mime_type,
      metadata: row.metadata,
      width: row.width,
      height: row.height,
      version: row.version,
      sha256: row.sha256,
      thumbnails: thumbnailWidths(row).map((width) => ({ width, url: this.thumbnail(row, width) })),
      publicUrl: this.publicReference(row),
      createdAt: new Date(row.created_at).toISOString(),
      updatedAt: new Date(row.updated_at).toISOString(),
    };
  }
}
