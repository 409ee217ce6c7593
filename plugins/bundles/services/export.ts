import { once } from 'node:events';
import { ZipArchive } from 'archiver';
import { notFound } from '../../../kernel/index.ts';
import type { BundleAsset, WebsiteBundleFiles, WebsiteBundlePart } from '../ports.ts';
import { assetEntryName, MANIFEST_NAME, MANIFEST_VERSION } from './manifest.ts';
import { collectStrings } from './strings.ts';

export interface ExportDeps {
  parts: () => readonly WebsiteBundlePart[];
  files: () => WebsiteBundleFiles | undefined;
  now: () => Date;
}

/**
 * Builds the manifest by asking each part in order (content first, so the data part sees which
 * classes and objects the pages reference, and the asset part which files both reference).
 */
export async function buildManifest(
  deps: ExportDeps,
  websiteId: string,
  dataObjects: 'all' | 'referenced',
  opts: { drafts?: boolean } = {},
): Promise<{ manifest: Record<string, unknown>; assets: BundleAsset[] }> {
  const sections: Record<string, unknown> = {};
  const strings = new Set<string>();
  // The content part (highest order) holds the website: it runs first; then the others, lowest first.
  const parts = [...deps.parts()].sort((a, b) =>
    a.id === 'content' ? -1 : b.id === 'content' ? 1 : a.order - b.order,
  );
  for (const part of parts) {
    const out = await part.exportSections({ websiteId, dataObjects, drafts: opts.drafts === true, sections, strings });
    Object.assign(sections, out);
    collectStrings(out, strings);
    if (part.id === 'content' && !sections.website) throw notFound('Website not found');
  }
  if (!sections.website) throw notFound('Website not found');
  const described = (await deps.files()?.describe([...strings])) ?? [];
  const assets = described.map((a, i) => ({ ...a, file: assetEntryName(i + 1, a.filename) }));
  const manifest = {
    version: MANIFEST_VERSION,
    exportedAt: deps.now().toISOString(),
    dataObjects,
    ...sections,
    assets,
  };
  return { manifest, assets };
}

/**
 * The bundle as a zip stream: `bundle.json` first, then each file under `assets/0001-<name>`, one at a
 * time (the next file is opened once the previous one is in the archive), so memory stays flat
 * whatever the total size. Files are stored without recompression (most are compressed already).
 */
export function streamBundle(
  manifest: Record<string, unknown>,
  assets: readonly BundleAsset[],
  files: WebsiteBundleFiles | undefined,
  log: { warn(obj: object, msg: string): void },
): ZipArchive {
  const archive = new ZipArchive({ zlib: { level: 6 } });
  const run = async () => {
    archive.append(Buffer.from(JSON.stringify(manifest, null, 1)), { name: MANIFEST_NAME });
    await once(archive, 'entry');
    for (const asset of assets) {
      if (!files || !asset.file) continue;
      const body = await files.open(asset.id);
      archive.append(body, { name: asset.file, store: true });
      await once(archive, 'entry');
    }
    await archive.finalize();
  };
  run().catch((err) => {
    log.warn({ err }, 'website export stopped');
    archive.destroy(err);
  });
  return archive;
}
