import { conflict, notFound, type Db } from '../../../kernel/index.ts';
import type { AssetRow } from '../model.ts';
import type { ObjectStorage } from '../storage/object-storage.ts';
import { deleteMirror, findMirror, mirroredKeysByPath, recordMirror } from '../store/mirror-store.ts';
import type { LibraryService } from './library.ts';

/**
 * CDN mirror: a copy of a public asset pushed to a second S3 target (its own bucket and keys), for a
 * CDN in front of it. Keys are `<prefix><uuid>/v<version>/<safe file name>`, so a new version is a new
 * key. Private assets are never mirrored: a CDN would serve them to anyone.
 */
export class CdnMirror {
  constructor(
    private readonly deps: {
      db: Db;
      storage: ObjectStorage;
      target: ObjectStorage | null;
      publicBaseUrl: string;
      prefix: string;
      library: LibraryService;
    },
  ) {}

  get configured(): boolean {
    return this.deps.target !== null;
  }

  async mirror(id: string): Promise<{ id: string; key: string; url: string | null; version: number }> {
    const row = await this.deps.library.get(id);
    if (!this.deps.target)
      throw conflict('No CDN mirror target is configured (DAM_CDN_MIRROR_S3_*)', 'MIRROR_NOT_CONFIGURED');
    if (row.visibility !== 'public')
      throw conflict('Private assets are not mirrored to the CDN', 'ASSET_PRIVATE', 'id');
    const key = this.keyOf(row);
    const got = await this.deps.storage.get(row.storage_key);
    if (!got) throw notFound('The stored file of this asset is missing', 'FILE_MISSING');
    await this.deps.target.put(key, got.body, { contentType: row.mime_type, size: Number(row.size) });
    await recordMirror(this.deps.db, { asset_id: row.id, version: row.version, key });
    return { id: row.id, key, url: this.urlOf(key), version: row.version };
  }

  /**
   * Removes the mirrored copy of an asset made private (a CDN would keep serving it to anyone) and its
   * record; nothing when none was made. A failure leaves the record, so the next call tries again.
   */
  async withdraw(id: string): Promise<void> {
    const mirrored = await findMirror(this.deps.db, id);
    if (!mirrored) return;
    if (this.deps.target) await this.deps.target.delete(mirrored.key);
    await deleteMirror(this.deps.db, id, mirrored.key);
  }

  /** For each path: whether a copy of its current version exists on the mirror, and its CDN URL. */
  async status(paths: readonly string[]): Promise<Array<{ path: string; mirrored: boolean; url: string | null }>> {
    const byPath = await mirroredKeysByPath(this.deps.db, paths);
    return paths.map((path) => {
      const key = byPath.get(path);
      return { path, mirrored: key !== undefined, url: key !== undefined ? this.urlOf(key) : null };
    });
  }

  private keyOf(row: AssetRow): string {
    const safe = row.filename.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^[^A-Za-z0-9]/, 'f');
    return `${this.deps.prefix}${row.uuid}/v${row.version}/${safe}`;
  }

  private urlOf(key: string): string | null {
    return this.deps.publicBaseUrl ? `${this.deps.publicBaseUrl.replace(/\/$/, '')}/${key}` : null;
  }
}
