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
  };
}
