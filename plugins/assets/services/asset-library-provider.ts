import type { Tx } from '../../../kernel/index.ts';
import type { AssetLibrary, AssetRef, AttachFormUploadInput } from '../ports.ts';
import type { AssetServices } from './index.ts';

/** Provides the `assetLibrary` service other plugins use (its interface is in ports.ts), over this plugin's services. */
export function provideAssetLibrary(s: AssetServices): AssetLibrary {
  return {
    async resolve(references: readonly string[], trx?: Tx): Promise<Map<string, AssetRef>> {
      const rows = await s.library.resolve(references, trx);
      return new Map([...rows].map(([ref, row]) => [ref, s.urls.ref(row)]));
    },
    async attachFormUpload(input: AttachFormUploadInput, trx?: Tx): Promise<AssetRef> {
      return s.urls.ref(await s.formUploads.attach(input, trx));
    },
    stagedUpload: (uploadId, trx) => s.formUploads.staged(uploadId, trx),
  };
}
