import { notFound, type PluginContributions } from '../../../kernel/index.ts';
import type { AssetServiceClient } from './asset-service-client.ts';
import type { AssetServices } from './index.ts';

type Files = PluginContributions['websiteBundleFiles'];

const DELIVERY = '/dam-asset/';
/** Paths looked up per query (bundle imports ask for every asset of a bundle at once). */
const LOOKUP_BATCH = 1000;

/** `/dam-asset/<encoded path>?v=3` (with or without the host) → the library path. */
function deliveryPath(text: string): string | undefined {
  const at = text.indexOf(DELIVERY);
  if (at < 0) return undefined;
  const rest = text.slice(at + DELIVERY.length).split(/[?#]/)[0];
  try {
    return decodeURIComponent(rest);
  } catch {
    return undefined;
  }
}

/**
 * The asset plugin's files in a website bundle (the bundles plugin's registry `websiteBundleFiles`):
 * which library files a website's content and objects reference, their bytes (streamed from the
 * store), and storing a bundle's file as a new library asset.
 */
export function assetBundleFiles(s: AssetServices): Files {
  return {
    maxFileBytes: s.config.ASSET_MAX_FILE_BYTES,
    async describe(references) {
      const wanted = new Set<string>();
      for (const r of references) {
        if (r.length > 6144) continue;
        wanted.add(deliveryPath(r) ?? r);
      }
      const list = [...wanted];
      const found = new Map<string, Awaited<ReturnType<typeof s.library.get>>>();
      for (let i = 0; i < list.length; i += 1000)
        for (const row of (await s.library.resolve(list.slice(i, i + 1000))).values()) found.set(row.id, row);
      return [...found.values()]
        .sort((a, b) => a.path.localeCompare(b.path))
        .map((row) => ({
          id: row.id,
          uuid: row.uuid,
          path: row.path,
          url: `${DELIVERY}${row.path}`,
          filename: row.filename,
          mimeType: row.mime_type,
          size: Number(row.size),
          visibility: row.visibility,
        }));
    },
    async open(id) {
      const row = await s.library.get(id);
      const got = await s.storage.get(row.storage_key);
      if (!got) throw notFound(`The stored file of asset ${row.path} is missing`, 'ASSET_FILE_MISSING');
      return got.body;
    },
    async byPaths(paths) {
      const out = new Map<string, { id: string; path: string; size: number }>();
      for (let i = 0; i < paths.length; i += LOOKUP_BATCH)
        for (const [ref, row] of await s.library.resolve(paths.slice(i, i + LOOKUP_BATCH)))
          if (row.path === ref) out.set(ref, { id: row.id, path: row.path, size: Number(row.size) });
      return out;
    },
    async store({ body, path, visibility, actor }) {
      const cut = path.lastIndexOf('/');
      const row = await s.library.upload({
        body,
        folder: cut < 0 ? '' : path.slice(0, cut),
        filename: path.slice(cut + 1),
        visibility,
        actor,
        createdBy: actor.id,
      });
      return { id: row.id, path: row.path };
    },
  };
}

/**
 * The same files through the asset-processor's service routes (`ASSET_SERVICE_URL`, bearer
 * `DAM_SERVICE_TOKEN`): what core-api uses in the split deployment, where the asset service owns the
 * files. Bytes stream both ways.
 */
export function remoteBundleFiles(client: AssetServiceClient, maxFileBytes: number): Files {
  const describe: Files['describe'] = async (references) =>
    (
      await client.json<{ assets: Awaited<ReturnType<Files['describe']>> }>(
        'asset service',
        'POST',
        '/dam/bundle-files/describe',
        { references },
      )
    ).assets;
  return {
    maxFileBytes,
    describe,
    async open(id) {
      return (await client.stream(`asset ${id}`, `/dam/bundle-files/${encodeURIComponent(id)}`, {})).body;
    },
    async byPaths(paths) {
      const out = new Map<string, { id: string; path: string; size: number }>();
      const wanted = new Set(paths);
      for (let i = 0; i < paths.length; i += LOOKUP_BATCH)
        for (const a of await describe(paths.slice(i, i + LOOKUP_BATCH)))
          if (wanted.has(a.path)) out.set(a.path, { id: a.id, path: a.path, size: a.size });
      return out;
    },
    async store({ body, path, visibility }) {
      const query = new URLSearchParams({ path, visibility }).toString();
      const res = await client.stream(
        path,
        `/dam/bundle-files?${query}`,
        { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body },
        201,
      );
      return (await res.body.json()) as { id: string; path: string };
    },
  };
}

/**
 * The same files for static builds (the publish plugin's registry `sitePublishFiles`): which library
 * files the rendered pages reference and their bytes, from the asset-processor in the split
 * deployment as for bundles.
 */
export function assetPublishFiles(s: AssetServices): PluginContributions['sitePublishFiles'] {
  const files = s.serviceClient
    ? remoteBundleFiles(s.serviceClient, s.config.ASSET_MAX_FILE_BYTES)
    : assetBundleFiles(s);
  return {
    describe: async (references) =>
      (await files.describe(references)).map((a) => ({
        id: a.id,
        path: a.path,
        mimeType: a.mimeType,
        size: a.size,
        visibility: a.visibility,
      })),
    open: (id) => files.open(id),
  };
}
