import type { Readable } from 'node:stream';
import { HttpError, notFound } from '../../../kernel/index.ts';
import type { AssetLibrary, FolderFile } from '../ports.ts';
import type { AssetServiceClient } from './asset-service-client.ts';
import type { AssetServices } from './index.ts';

/** Files one folder listing returns at most. */
export const MAX_FOLDER_FILES = 20_000;

type FolderFiles = Pick<AssetLibrary, 'folderFiles' | 'readFile'>;

/** Reads a stream into memory, refusing (413 FILE_TOO_LARGE) past `maxBytes` without reading on. */
async function readCapped(body: Readable, maxBytes: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      body.destroy();
      throw new HttpError(413, 'FILE_TOO_LARGE', `${what} is larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The files of a folder and their bytes, from this process's library (all-in-one, asset-processor). */
export function localFolderFiles(s: AssetServices): FolderFiles {
  return {
    async folderFiles(folder, limit = MAX_FOLDER_FILES) {
      const cap = Math.max(1, Math.min(limit, MAX_FOLDER_FILES));
      const rows = await s.library.tree(folder, cap + 1);
      const files: FolderFile[] = rows.slice(0, cap).map((row) => ({
        ...s.urls.ref(row),
        sha256: row.sha256,
        version: row.version,
        updatedAt: new Date(row.updated_at).toISOString(),
      }));
      return { files, truncated: rows.length > cap };
    },
    async readFile(id, maxBytes) {
      const row = await s.library.get(id);
      if (Number(row.size) > maxBytes)
        throw new HttpError(413, 'FILE_TOO_LARGE', `${row.path} is larger than ${maxBytes} bytes`);
      const got = await s.storage.get(row.storage_key);
      if (!got) throw notFound(`The stored file of asset ${row.path} is missing`, 'ASSET_FILE_MISSING');
      return readCapped(got.body, maxBytes, row.path);
    },
  };
}

/** The same over the asset-processor's service routes (core-api with `ASSET_SERVICE_URL`). */
export function remoteFolderFiles(client: AssetServiceClient): FolderFiles {
  return {
    async folderFiles(folder, limit = MAX_FOLDER_FILES) {
      const query = new URLSearchParams({ folder, limit: String(Math.min(limit, MAX_FOLDER_FILES)) });
      return client.json<{ files: FolderFile[]; truncated: boolean }>(
        `folder ${folder}`,
        'GET',
        `/dam/folder-files?${query}`,
      );
    },
    async readFile(id, maxBytes) {
      const res = await client.stream(`asset ${id}`, `/dam/bundle-files/${encodeURIComponent(id)}`, {});
      return readCapped(res.body as unknown as Readable, maxBytes, `asset ${id}`);
    },
  };
}
