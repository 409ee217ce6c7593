import type { BundleAsset, BundleManifest, WebsiteBundleFiles } from '../ports.ts';
import type { AssetMap } from './manifest.ts';

export interface AssetPlanItem {
  id: string;
  path: string;
  size: number | null;
  action: 'upload' | 'reuse' | 'conflict';
  targetPath: string;
  reason?: string;
  /** false: over the asset limit, reported as not stored (the import goes on without it). */
  stored?: false;
}

/** The plan, plus the library file each `reuse` item points at (old asset id → the file here). */
export interface AssetPlan {
  items: AssetPlanItem[];
  reuse: Map<string, { id: string; path: string }>;
}

/**
 * Per asset of the manifest: `upload` (the bundle carries it and the library has no file there),
 * `reuse` (assetMap, or a library file of the same path and size) or `conflict`. The library is
 * asked once for every path (in batches), not once per asset: a bundle may hold 100,000 files.
 */
export async function planAssets(
  manifest: BundleManifest,
  files: WebsiteBundleFiles | undefined,
  assetMap: AssetMap,
  hasFiles: boolean,
  warnings: string[],
  /** Where a path of the bundle is stored here (a relocated documentation folder); itself by default. */
  relocate: (path: string) => string = (path) => path,
): Promise<AssetPlan> {
  const plan: AssetPlan = { items: [], reuse: new Map() };
  const assets = (manifest.assets as BundleAsset[] | undefined) ?? [];
  if (!assets.length) return plan;
  if (!files) {
    warnings.push('The asset plugin is not loaded here: files are not imported and references keep their old values');
    return plan;
  }
  const paths = new Set<string>();
  for (const a of assets) paths.add(assetMap.get(a.id)?.pimcorePath ?? relocate(a.path));
  const library = await files.byPaths([...paths]);
  for (const a of assets) {
    const size = typeof a.size === 'number' ? a.size : null;
    const base = { id: a.id, path: a.path, size };
    const mapped = assetMap.get(a.id);
    const at = relocate(a.path);
    const there = library.get(mapped?.pimcorePath ?? at);
    const reuse = (reason: string, target: { id: string; path: string }) => {
      plan.items.push({ ...base, action: 'reuse', targetPath: target.path, reason });
      plan.reuse.set(a.id, target);
    };
    const conflict = (targetPath: string, reason: string) =>
      plan.items.push({ ...base, action: 'conflict', targetPath, reason });
    if (mapped) {
      if (there && there.id === mapped.id) reuse('assetMap', there);
      else
        conflict(
          mapped.pimcorePath,
          `assetMap names ${mapped.id} at ${mapped.pimcorePath}, which is not in the library`,
        );
    } else if (hasFiles && a.file) {
      if (!there) {
        const tooLarge = size !== null && size > files.maxFileBytes;
        plan.items.push(
          tooLarge
            ? { ...base, action: 'upload', targetPath: at, stored: false }
            : { ...base, action: 'upload', targetPath: at },
        );
        if (tooLarge) warnings.push(`${a.path} is larger than ${files.maxFileBytes} bytes and will not be stored`);
      } else if (there.size === size) reuse('a library file of the same path and size', there);
      else conflict(at, 'another file is stored at this path; map it with assetMap');
    } else if (there) reuse('same path in the library', there);
    else conflict(at, 'the bundle carries no file for it and the library has none at this path; map it with assetMap');
  }
  return plan;
}
