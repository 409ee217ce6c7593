import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { Actor, PermissionRegistry, Tx } from '../../../kernel/index.ts';
import { ASSET_KEYS } from '../permissions.ts';
import { remoteBundleFiles } from './bundle-files.ts';
import type { AssetLibrary, AssetRef, AttachFormUploadInput } from '../ports.ts';
import { localFolderFiles, remoteFolderFiles } from './folder-files.ts';
import type { AssetServices } from './index.ts';

/** Provides the `assetLibrary` service other plugins use (its interface is in ports.ts), over this plugin's services. */
export function provideAssetLibrary(s: AssetServices, permissions: PermissionRegistry): AssetLibrary {
  const resolve = async (references: readonly string[], trx?: Tx): Promise<Map<string, AssetRef>> => {
    const rows = await s.library.resolve(references, trx);
    return new Map([...rows].map(([ref, row]) => [ref, s.urls.ref(row)]));
  };
  // The split deployment's core-api reads folders from the asset service, where the files live.
  const folders = s.serviceClient ? remoteFolderFiles(s.serviceClient) : localFolderFiles(s);
  return {
    resolve,
    folderFiles: folders.folderFiles,
    readFile: folders.readFile,
    // A writer references only what it could read itself: an anonymous caller (a public form) nothing.
    async referable(references: readonly string[], actor: Actor, trx?: Tx): Promise<Set<string>> {
      if (!permissions.allows(actor, ASSET_KEYS.read) || references.length === 0) return new Set();
      if (!s.serviceClient) return new Set((await s.library.resolve(references, trx)).keys());
      const known = await remoteBundleFiles(s.serviceClient, s.config.ASSET_MAX_FILE_BYTES).describe(references);
      const refs = new Set(known.flatMap((a) => [a.id, a.uuid, a.path]));
      return new Set(references.filter((r) => refs.has(r)));
    },
    async attachFormUpload(input: AttachFormUploadInput, trx?: Tx): Promise<AssetRef> {
      return s.urls.ref(await s.formUploads.attach(input, trx));
    },
    stagedUpload: (uploadId, trx) => s.formUploads.staged(uploadId, trx),
    async storeFile(input, trx) {
      if (s.serviceClient) {
        const files = remoteBundleFiles(s.serviceClient, s.config.ASSET_MAX_FILE_BYTES);
        const path = input.folder ? `${input.folder}/${input.filename}` : input.filename;
        const stored = await files.store({
          body: Readable.from([input.bytes]),
          path,
          visibility: input.visibility,
          actor: input.actor,
        });
        const [a] = await files.describe([stored.id]);
        if (!a) throw new Error(`stored asset ${stored.path} is not found`);
        const cut = a.path.lastIndexOf('/');
        return {
          ...a,
          uuid: a.uuid ?? a.id,
          url: a.url ?? `/dam-asset/${a.path}`,
          folder: cut < 0 ? '' : a.path.slice(0, cut),
          thumbnailUrl: null,
        };
      }
      const row = await s.library.upload(
        {
          body: Readable.from([input.bytes]),
          folder: input.folder,
          filename: input.filename,
          visibility: input.visibility,
          actor: input.actor,
          createdBy: input.actor.type === 'user' ? input.actor.id : null,
        },
        trx,
      );
      return s.urls.ref(row);
    },
    async importFile({ file, path, visibility, actor }, trx) {
      const cut = path.lastIndexOf('/');
      const folder = cut < 0 ? '' : path.slice(0, cut);
      const filename = path.slice(cut + 1);
      if (s.serviceClient) {
        const files = remoteBundleFiles(s.serviceClient, s.config.ASSET_MAX_FILE_BYTES);
        const found = (await files.byPaths([path])).get(path);
        return found ?? files.store({ body: createReadStream(file), path, visibility, actor });
      }
      const existing = (await s.library.resolve([path], trx)).get(path);
      if (existing) return { id: existing.id, path: existing.path };
      const row = await s.library.upload(
        { body: createReadStream(file), folder, filename, visibility, actor, createdBy: actor.id },
        trx,
      );
      return { id: row.id, path: row.path };
    },
  };
}
