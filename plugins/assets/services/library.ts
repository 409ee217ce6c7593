import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  badRequest,
  conflict,
  HttpError,
  inTransaction,
  notFound,
  type ChangeActor,
  type Db,
  type Logger,
  type RecordHooks,
  type Tx,
} from '../../../kernel/index.ts';
import { announceAssetBulk, announceAssetChange } from '../events.ts';
import { imageCallerOf } from './actor.ts';
import { keys, type AssetRow, type Visibility } from '../model.ts';
import type { ObjectStorage } from '../storage/object-storage.ts';
import * as store from '../store/asset-store.ts';
import type { AssetUrls } from './dto.ts';
import type { ImageProcessor } from './images.ts';
import { receiveToTemp, type ReceivedFile } from './intake.ts';
import {
  folderChain,
  joinPath,
  lookupAssetPath,
  lookupFolder,
  newAssetPath,
  normaliseAssetPath,
  normaliseFilename,
  normaliseFolder,
} from './paths.ts';
import { sniffType, type SniffedType } from './sniff.ts';

export const MAX_METADATA_BYTES = 64 * 1024;
const UNREADABLE: SniffedType = { mimeType: 'application/octet-stream', image: false, inline: false };

export interface LibraryDeps {
  db: Db;
  recordHooks: RecordHooks;
  storage: ObjectStorage;
  images: ImageProcessor;
  urls: AssetUrls;
  log: Logger;
  maxFileBytes: number;
  /** Most assets the library holds; 0 = no cap (the sandbox profile sets one). */
  maxAssets: number;
  thumbnailWidths: number[];
  tmpDir: string;
  /** Drops cached rows of these paths (delivery cache) once a change is decided. */
  invalidate(paths: readonly string[]): void;
  /** Removes public copies made outside delivery (the CDN mirror) of an asset that is private now. */
  withdrawPublicCopies(id: string): Promise<void>;
}

export interface UploadInput {
  body: Readable;
  filename: string;
  folder: string;
  visibility: Visibility;
  metadata?: Record<string, unknown>;
  overwrite?: boolean;
  actor: ChangeActor;
  createdBy?: string | null;
  /** The public form upload the file comes from (form attach only): the provenance a data-subject erase reads. */
  formUploadId?: string;
  /** Types refused for this upload (public forms refuse markup and programs). */
  accept?: (type: SniffedType) => string | null;
}

/** What an upload stored before its row commits, so a failure can remove it again. */
interface StoredFiles {
  /** The type it is stored under: the sniffed one, unless an image of a decodable format did not decode. */
  type: SniffedType;
  keys: string[];
  thumbnails: number[];
  width: number | null;
  height: number | null;
}

/**
 * The asset library: files in the object store, rows in `assets`, folders in `asset_folders`. Bytes
 * are stored before the row is written and removed again when the row does not commit; every change
 * announces itself (record type `asset`) in its transaction.
 */
export class LibraryService {
  constructor(private readonly deps: LibraryDeps) {}

  get urls(): AssetUrls {
    return this.deps.urls;
  }

  /** Streams a file into the library; 413 over the size or pixel limit with nothing stored. */
  async upload(input: UploadInput, trx?: Tx): Promise<AssetRow> {
    const folder = normaliseFolder(input.folder);
    const filename = normaliseFilename(input.filename);
    newAssetPath(folder, filename, 'filename');
    checkMetadata(input.metadata);
    const received = await receiveToTemp(input.body, { maxBytes: this.deps.maxFileBytes, tmpDir: this.deps.tmpDir });
    try {
      return await this.storeReceived(received, { ...input, folder, filename }, trx);
    } finally {
      await received.discard();
    }
  }

  /**
   * Stores a file already on local disk (a received upload or a staged form upload). `outcome` is the
   * outermost transaction whose end decides whether the stored files stay (default: `trx`).
   */
  async storeReceived(
    received: ReceivedFile,
    input: Omit<UploadInput, 'body'>,
    trx?: Tx,
    outcome: Tx | undefined = trx,
  ): Promise<AssetRow> {
    const type = sniffType(received.head);
    const refusal = input.accept?.(type);
    if (refusal) throw badRequest(refusal, 'file', 'FILE_TYPE_REFUSED');
    if (received.size === 0) throw badRequest('The file is empty', 'file', 'EMPTY_FILE');
    const path = joinPath(input.folder, input.filename);
    const existing = await store.findAsset(trx ?? this.deps.db, { path });
    if (existing && !input.overwrite) throw conflict(`An asset already exists at ${path}`, 'ASSET_EXISTS', 'path');
    // Every way a new path comes in (upload, form attach, edited copy) keeps the rules of a new name.
    if (!existing)
      newAssetPath(normaliseFolder(input.folder), normaliseFilename(input.filename, 'filename'), 'filename');
    if (!existing && this.deps.maxAssets > 0 && (await store.countAssets(trx ?? this.deps.db)) >= this.deps.maxAssets)
      throw new HttpError(
        403,
        'ASSET_COUNT_LIMIT',
        `The library holds its maximum of ${this.deps.maxAssets} assets (ASSET_MAX_COUNT)`,
      );
    const id = existing?.id ?? randomUUID();
    const version = existing ? existing.version + 1 : 1;
    const stored = await this.storeFiles(id, version, received.tempPath, type, imageCallerOf(input.actor));
    try {
      const row = await inTransaction(this.deps.db, trx, async (t) => {
        const values = {
          mime_type: stored.type.mimeType,
          size: received.size,
          sha256: received.sha256,
          width: stored.width,
          height: stored.height,
          thumbnails: stored.thumbnails,
          version,
          storage_key: keys.original(id, version),
          // A new version by anyone else is no longer the visitor's upload.
          form_upload_id: input.formUploadId ?? null,
        };
        if (existing) {
          const locked = await store.findAsset(t, { id }, true);
          if (!locked || locked.version !== existing.version)
            throw conflict(`${path} changed while uploading; try again`, 'ASSET_CHANGED', 'path');
          const metadata = input.metadata ?? locked.metadata;
          const updated = await store.updateAsset(t, id, { ...values, visibility: input.visibility, metadata });
          await announceAssetChange(this.deps.recordHooks, t, {
            kind: 'updated',
            row: updated,
            actor: input.actor,
            changedFields: ['file', ...(input.metadata ? ['metadata'] : [])],
          });
          return updated;
        }
        await this.claimFilePath(t, { folder: input.folder, path }, { folder: 'folder', path: 'filename' });
        const created = await store
          .insertAsset(t, {
            id,
            path,
            folder: input.folder,
            filename: input.filename,
            visibility: input.visibility,
            metadata: input.metadata ?? {},
            created_by: input.createdBy ?? null,
            ...values,
          })
          .catch((err) => {
            throw store.isUuid(id) && (err as { code?: string }).code === '23505'
              ? conflict(`An asset already exists at ${path}`, 'ASSET_EXISTS', 'path')
              : err;
          });
        await announceAssetChange(this.deps.recordHooks, t, { kind: 'created', row: created, actor: input.actor });
        return created;
      });
      this.afterOutcome(outcome, {
        committed: async () => {
          this.deps.invalidate([path]);
          if (existing) await this.removeKeys(keys.versionPrefixes(id, existing.version));
          if (input.visibility === 'private' && existing) await this.deps.withdrawPublicCopies(id);
        },
        rolledBack: () => this.removeKeys(stored.keys),
      });
      return row;
    } catch (err) {
      await this.removeKeys(stored.keys);
      throw err;
    }
  }

  /** Original plus thumbnails of one version; images are probed (pixel limit) before anything is stored. */
  private async storeFiles(
    id: string,
    version: number,
    tempPath: string,
    sniffed: SniffedType,
    caller: string,
  ): Promise<StoredFiles> {
    let type = sniffed;
    let width: number | null = null;
    let height: number | null = null;
    let thumbs: Array<{ width: number; data: Buffer }> = [];
    if (type.image) {
      try {
        ({ width, height } = await this.deps.images.probe(tempPath, { caller }));
        thumbs = await this.makeThumbnails(tempPath, caller);
      } catch (err) {
        // A file that only looks like an image is still stored, without dimensions or thumbnails, but
        // not under the image's type (`GIF89a<html>...` is no GIF): it is delivered as an attachment.
        // HEIC keeps its type: this sharp build cannot decode it. The pixel limit is never waived.
        if ((err as { code?: string }).code !== 'INVALID_IMAGE') throw err;
        width = height = null;
        thumbs = [];
        if (type.mimeType !== 'image/heic') type = UNREADABLE;
      }
    }
    const written: string[] = [];
    try {
      const original = keys.original(id, version);
      await this.deps.storage.putFile(original, tempPath, { contentType: type.mimeType });
      written.push(original);
      for (const thumb of thumbs) {
        const key = keys.thumbnail(id, version, thumb.width);
        await this.deps.storage.put(key, bufferStream(thumb.data), {
          contentType: 'image/webp',
          size: thumb.data.length,
        });
        written.push(key);
      }
    } catch (err) {
      await this.removeKeys(written);
      throw err;
    }
    return { keys: written, thumbnails: thumbs.map((t) => t.width), width, height, type };
  }

  /** WebP thumbnails, largest first, each smaller one made from the one before (one full decode). */
  async makeThumbnails(input: string | Buffer, caller: string): Promise<Array<{ width: number; data: Buffer }>> {
    const out: Array<{ width: number; data: Buffer }> = [];
    let source: string | Buffer = input;
    for (const width of [...this.deps.thumbnailWidths].sort((a, b) => b - a)) {
      const image = await this.deps.images.resize(source, { width, format: 'webp', quality: 75 }, undefined, {
        caller,
      });
      out.push({ width, data: image.data });
      source = image.data;
    }
    return out;
  }

  async regenerateThumbnails(
    ids: readonly string[],
    actor: ChangeActor,
  ): Promise<Array<{ id: string; status: 'regenerated' | 'not_found' | 'not_an_image' }>> {
    const results: Array<{ id: string; status: 'regenerated' | 'not_found' | 'not_an_image' }> = [];
    for (const id of ids) {
      const row = await store.findAsset(this.deps.db, { id });
      if (!row) {
        results.push({ id, status: 'not_found' });
        continue;
      }
      if (!isImageType(row.mime_type)) {
        results.push({ id, status: 'not_an_image' });
        continue;
      }
      await this.withLocalCopy(row, async (file) => {
        const thumbs = await this.makeThumbnails(file, imageCallerOf(actor));
        await this.deps.storage.deletePrefix(`t/${row.id}/v${row.version}/`);
        for (const t of thumbs)
          await this.deps.storage.put(keys.thumbnail(row.id, row.version, t.width), bufferStream(t.data), {
            contentType: 'image/webp',
          });
        await this.deps.db.transaction(async (trx) => {
          const updated = await store.updateAsset(trx, row.id, { thumbnails: thumbs.map((t) => t.width) });
          await announceAssetChange(this.deps.recordHooks, trx, {
            kind: 'updated',
            row: updated,
            actor,
            changedFields: ['thumbnails'],
          });
        });
      });
      results.push({ id, status: 'regenerated' });
    }
    return results;
  }

  /** Runs `work` with a local file of the asset's bytes: the stored file itself on disk, a temporary copy from S3. */
  async withLocalCopy<T>(row: AssetRow, work: (file: string) => Promise<T>): Promise<T> {
    const local = this.deps.storage.localPath(row.storage_key);
    if (local) return work(local);
    const got = await this.deps.storage.get(row.storage_key);
    if (!got) throw notFound('The stored file of this asset is missing', 'FILE_MISSING');
    const received = await receiveToTemp(got.body, { maxBytes: Number.MAX_SAFE_INTEGER, tmpDir: this.deps.tmpDir });
    try {
      return await work(received.tempPath);
    } finally {
      await received.discard();
    }
  }

  async get(id: string): Promise<AssetRow> {
    const row = await store.findAsset(this.deps.db, { id });
    if (!row) throw notFound('Asset not found', 'ASSET_NOT_FOUND');
    return row;
  }

  async find(by: { id?: string; path?: string }): Promise<AssetRow> {
    if (by.id) return this.get(by.id);
    if (by.path !== undefined) {
      const row = await store.findAsset(this.deps.db, { path: lookupAssetPath(by.path).path });
      if (row) return row;
    }
    if (!by.id && by.path === undefined) throw badRequest('id or path is required', 'id');
    throw notFound('Asset not found', 'ASSET_NOT_FOUND');
  }

  /** Every file in a folder and below, by path (at most `limit`). */
  tree(folder: string, limit: number) {
    return store.listFolderTree(this.deps.db, lookupFolder(folder), limit);
  }

  list(folder: string, page: { limit: number; offset: number; search?: string; recursive?: boolean }) {
    return store.listInFolder(this.deps.db, lookupFolder(folder), page);
  }

  async updateMetadata(
    by: { id?: string; path?: string },
    patch: { metadata: Record<string, unknown>; merge?: boolean; visibility?: Visibility },
    actor: ChangeActor,
  ): Promise<AssetRow> {
    checkMetadata(patch.metadata);
    const target = await this.find(by);
    const row = await this.deps.db.transaction(async (trx) => {
      const locked = (await store.findAsset(trx, { id: target.id }, true))!;
      const metadata = patch.merge ? { ...locked.metadata, ...patch.metadata } : patch.metadata;
      checkMetadata(metadata);
      const changed = [
        ...(JSON.stringify(metadata) !== JSON.stringify(locked.metadata) ? ['metadata'] : []),
        ...(patch.visibility && patch.visibility !== locked.visibility ? ['visibility'] : []),
      ];
      if (changed.length === 0) return locked;
      const updated = await store.updateAsset(trx, locked.id, {
        metadata,
        ...(patch.visibility ? { visibility: patch.visibility } : {}),
      });
      await announceAssetChange(this.deps.recordHooks, trx, {
        kind: 'updated',
        row: updated,
        actor,
        changedFields: changed,
      });
      return updated;
    });
    this.deps.invalidate([row.path]);
    // Also when nothing changed: a retry after a failed withdrawal finishes it.
    if (row.visibility === 'private') await this.deps.withdrawPublicCopies(row.id);
    return row;
  }

  /** Moves or renames: one row update (the bytes are keyed by id). */
  async move(
    by: { id?: string; path?: string },
    to: { folder?: string; filename?: string; path?: string },
    actor: ChangeActor,
  ): Promise<AssetRow> {
    const target = await this.find(by);
    const dest =
      to.path !== undefined
        ? normaliseAssetPath(to.path, 'to')
        : (() => {
            const folder = to.folder !== undefined ? normaliseFolder(to.folder, 'folder') : target.folder;
            const filename = to.filename !== undefined ? normaliseFilename(to.filename) : target.filename;
            return { path: joinPath(folder, filename), folder, filename };
          })();
    if (dest.path === target.path) return target;
    newAssetPath(dest.folder, dest.filename, 'to');
    const row = await this.deps.db.transaction(async (trx) => {
      if (await store.findAsset(trx, { path: dest.path }))
        throw conflict(`An asset already exists at ${dest.path}`, 'ASSET_EXISTS', 'to');
      await this.claimFilePath(trx, dest, { folder: 'to', path: 'to' }, target.id);
      const updated = await store
        .updateAsset(trx, target.id, { path: dest.path, folder: dest.folder, filename: dest.filename })
        .catch((err) => {
          throw (err as { code?: string }).code === '23505'
            ? conflict(`An asset already exists at ${dest.path}`, 'ASSET_EXISTS', 'to')
            : err;
        });
      await announceAssetChange(this.deps.recordHooks, trx, {
        kind: 'moved',
        row: updated,
        actor,
        from: target.path,
        changedFields: ['path'],
      });
      return updated;
    });
    this.deps.invalidate([target.path, row.path]);
    return row;
  }

  async delete(by: { id?: string; path?: string }, actor: ChangeActor): Promise<AssetRow> {
    const target = await this.find(by);
    await this.deps.db.transaction(async (trx) => {
      await store.deleteAsset(trx, target.id);
      await announceAssetChange(this.deps.recordHooks, trx, { kind: 'deleted', row: target, actor });
    });
    this.deps.invalidate([target.path]);
    await this.removeKeys(keys.prefixes(target.id));
    return target;
  }

  async createFolder(raw: string): Promise<{ path: string; created: boolean }> {
    const folder = normaliseFolder(raw, 'path');
    if (!folder) throw badRequest('path must name a folder', 'path', 'INVALID_PATH');
    return this.deps.db.transaction(async (trx) => {
      const existed = await store.folderExists(trx, folder);
      await this.makeFolders(trx, folder, 'path');
      return { path: folder, created: !existed };
    });
  }

  listFolders(parent: string) {
    return store.listFolders(this.deps.db, lookupFolder(parent, 'parent'));
  }

  /**
   * Makes a folder and its ancestors. A file and a folder never share a path (`to: "pub"` beside the
   * folder `pub/` would make one of them unreachable in listings and URLs): writers of the same paths
   * wait for each other, then a file at any folder of the chain is a 409 `PATH_IS_FILE`.
   */
  private async makeFolders(trx: Tx, folder: string, field: string, exceptAssetId?: string): Promise<void> {
    const chain = folderChain(folder);
    if (chain.length === 0) return;
    await store.lockPaths(trx, chain);
    const file = await store.assetAtAnyOf(trx, chain, exceptAssetId);
    if (file) throw conflict(`A file already exists at ${file}, so it cannot be a folder`, 'PATH_IS_FILE', field);
    await store.ensureFolders(trx, folder);
  }

  /** Makes the folders of a new file's path and claims the path: 409 `PATH_IS_FOLDER` when a folder has it. */
  private async claimFilePath(
    trx: Tx,
    dest: { folder: string; path: string },
    fields: { folder: string; path: string },
    exceptAssetId?: string,
  ): Promise<void> {
    await this.makeFolders(trx, dest.folder, fields.folder, exceptAssetId);
    await store.lockPaths(trx, [dest.path]);
    if (await store.folderExists(trx, dest.path))
      throw conflict(`A folder already exists at ${dest.path}, so it cannot be a file`, 'PATH_IS_FOLDER', fields.path);
  }

  /** Deletes a folder with everything under it: one `bulk` event, then the stored files. */
  async deleteFolder(raw: string, actor: ChangeActor): Promise<{ path: string; deletedAssets: number }> {
    const folder = lookupFolder(raw, 'path');
    if (!folder) throw badRequest('The library root cannot be deleted', 'path', 'INVALID_PATH');
    if (!(await store.folderExists(this.deps.db, folder))) throw notFound('Folder not found', 'FOLDER_NOT_FOUND');
    const rows = await this.deps.db.transaction(async (trx) => {
      const deleted = await store.deleteFolderTree(trx, folder);
      if (deleted.length)
        await announceAssetBulk(this.deps.recordHooks, trx, { kind: 'folder-delete', rows: deleted, actor, folder });
      return deleted;
    });
    this.deps.invalidate(rows.map((r) => r.path));
    for (const row of rows) await this.removeKeys(keys.prefixes(row.id));
    return { path: folder, deletedAssets: rows.length };
  }

  async byPaths(rawPaths: readonly string[]): Promise<Map<string, AssetRow>> {
    const paths = rawPaths.map((p, i) => lookupAssetPath(p, `paths.${i}`).path);
    const rows = await store.findByPaths(this.deps.db, paths);
    return new Map(rows.map((r) => [r.path, r]));
  }

  async resolve(references: readonly string[], trx?: Tx): Promise<Map<string, AssetRow>> {
    const rows = await store.findByReferences(trx ?? this.deps.db, references);
    const out = new Map<string, AssetRow>();
    for (const ref of references) {
      const row = rows.find((r) => r.id === ref || r.uuid === ref || r.path === ref);
      if (row) out.set(ref, row);
    }
    return out;
  }

  /** Runs the cleanup that fits how the transaction ended (own transactions have ended already: committed). */
  afterOutcome(
    trx: Tx | undefined,
    then: { committed: () => Promise<void> | void; rolledBack: () => Promise<void> | void },
  ): void {
    const log = (err: unknown) => this.deps.log.warn({ err }, 'asset storage cleanup failed');
    if (!trx) {
      Promise.resolve().then(then.committed).catch(log);
      return;
    }
    trx.executionPromise.then(
      () => Promise.resolve().then(then.committed).catch(log),
      () => Promise.resolve().then(then.rolledBack).catch(log),
    );
  }

  async removeKeys(list: readonly string[]): Promise<void> {
    for (const key of list) {
      try {
        if (key.endsWith('/')) await this.deps.storage.deletePrefix(key);
        else await this.deps.storage.delete(key);
      } catch (err) {
        this.deps.log.warn({ err, key }, 'stored file not removed');
      }
    }
  }
}

export const isImageType = (mime: string) =>
  ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif', 'image/tiff', 'image/heic'].includes(mime);

function checkMetadata(metadata: Record<string, unknown> | undefined): void {
  if (metadata === undefined) return;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
    throw badRequest('metadata must be an object', 'metadata');
  if (Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES)
    throw badRequest(`metadata is larger than ${MAX_METADATA_BYTES} bytes`, 'metadata', 'METADATA_TOO_LARGE');
}

export const bufferStream = (data: Buffer) => Readable.from([data]);
