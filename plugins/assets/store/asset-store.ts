import type { Db, Tx } from '../../../kernel/index.ts';
import type { AssetRow } from '../model.ts';
import { folderChain } from '../services/paths.ts';

type Q = Db | Tx;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string) => UUID.test(s);

export async function insertAsset(
  q: Q,
  row: Partial<AssetRow> & Pick<AssetRow, 'path' | 'folder' | 'filename'>,
): Promise<AssetRow> {
  const [out] = await q('assets')
    .insert({ ...row, metadata: JSON.stringify(row.metadata ?? {}), thumbnails: JSON.stringify(row.thumbnails ?? []) })
    .returning('*');
  return out as AssetRow;
}

export async function updateAsset(q: Q, id: string, patch: Partial<AssetRow>): Promise<AssetRow> {
  const values: Record<string, unknown> = { ...patch, updated_at: q.fn.now() };
  if (patch.metadata) values.metadata = JSON.stringify(patch.metadata);
  if (patch.thumbnails) values.thumbnails = JSON.stringify(patch.thumbnails);
  const [out] = await q('assets').where({ id }).update(values).returning('*');
  return out as AssetRow;
}

export async function findAsset(
  q: Q,
  by: { id?: string; path?: string; uuid?: string },
  lock = false,
): Promise<AssetRow | undefined> {
  if (by.id !== undefined && !isUuid(by.id)) return undefined;
  if (by.uuid !== undefined && !isUuid(by.uuid)) return undefined;
  const query = q<AssetRow>('assets').where(by).first();
  return (lock ? query.forUpdate() : query) as Promise<AssetRow | undefined>;
}

/** How many assets the library holds. */
export async function countAssets(q: Q): Promise<number> {
  const row = (await q('assets').count({ n: '*' }).first()) as { n: string | number } | undefined;
  return Number(row?.n ?? 0);
}

/** Rows by any mix of ids, uuids and paths. */
export async function findByReferences(q: Q, references: readonly string[]): Promise<AssetRow[]> {
  if (references.length === 0) return [];
  const ids = references.filter(isUuid);
  return q<AssetRow>('assets').where((w) => {
    w.whereIn('path', references as string[]);
    if (ids.length) w.orWhereIn('id', ids).orWhereIn('uuid', ids);
  });
}

export async function findByPaths(q: Q, paths: readonly string[]): Promise<AssetRow[]> {
  return paths.length ? q<AssetRow>('assets').whereIn('path', paths as string[]) : [];
}

export async function listInFolder(
  q: Q,
  folder: string,
  page: { limit: number; offset: number; search?: string; recursive?: boolean },
): Promise<{ rows: AssetRow[]; total: number }> {
  const base = q<AssetRow>('assets').where((w) => {
    if (page.recursive && folder) w.where('folder', folder).orWhere('folder', 'like', `${escapeLike(folder)}/%`);
    else if (!page.recursive) w.where('folder', folder);
  });
  if (page.search) base.andWhere('filename', 'ilike', `%${escapeLike(page.search)}%`);
  const [{ count }] = await base.clone().count<{ count: number }[]>({ count: '*' });
  const rows = await base
    .orderBy([{ column: 'filename' }, { column: 'id' }])
    .limit(page.limit)
    .offset(page.offset);
  return { rows, total: Number(count) };
}

/** Deletes one asset row; false when it was gone already. */
export async function deleteAsset(q: Q, id: string): Promise<boolean> {
  return (await q('assets').where({ id }).delete()) > 0;
}

export const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

// Folders are rows of their own so an empty folder exists; every asset's folder chain has rows too.
export async function ensureFolders(q: Q, folder: string): Promise<void> {
  const chain = folderChain(folder);
  if (chain.length)
    await q('asset_folders')
      .insert(chain.map((path) => ({ path })))
      .onConflict('path')
      .ignore();
}

/**
 * Holds a transaction-scoped lock on each path, in the order given (a folder chain is shortest first,
 * so two writers never wait on each other in a circle): writers of the same path take turns.
 */
export async function lockPaths(q: Tx, paths: readonly string[]): Promise<void> {
  if (paths.length)
    await q.raw(
      "select count(pg_advisory_xact_lock(hashtextextended('assets:path:' || p, 0))) from unnest(?::text[]) as p",
      [paths as string[]],
    );
}

/** The path of an asset at one of these paths (other than `exceptId`), if any. */
export async function assetAtAnyOf(q: Q, paths: readonly string[], exceptId?: string): Promise<string | undefined> {
  const query = q<AssetRow>('assets').whereIn('path', paths as string[]);
  if (exceptId) query.whereNot('id', exceptId);
  return (await query.first('path'))?.path;
}

export async function folderExists(q: Q, folder: string): Promise<boolean> {
  return folder === '' || Boolean(await q('asset_folders').where({ path: folder }).first());
}

/** Direct children of a folder ('' = root), with their asset counts. */
export async function listFolders(
  q: Q,
  parent: string,
): Promise<Array<{ path: string; name: string; createdAt: Date }>> {
  const rows = await q<{ path: string; created_at: Date }>('asset_folders')
    .where((w) => {
      if (parent)
        w.where('path', 'like', `${escapeLike(parent)}/%`).andWhereRaw("position('/' in substr(path, ?)) = 0", [
          parent.length + 2,
        ]);
      else w.whereRaw("position('/' in path) = 0");
    })
    .orderBy('path')
    .limit(1000);
  return rows.map((r) => ({ path: r.path, name: r.path.slice(r.path.lastIndexOf('/') + 1), createdAt: r.created_at }));
}

/** Deletes a folder, its subfolders and every asset under them; returns the deleted asset rows. */
export async function deleteFolderTree(q: Q, folder: string): Promise<AssetRow[]> {
  const like = `${escapeLike(folder)}/%`;
  const assets = await q<AssetRow>('assets')
    .where('folder', folder)
    .orWhere('folder', 'like', like)
    .delete()
    .returning('*');
  await q('asset_folders').where('path', folder).orWhere('path', 'like', like).delete();
  return assets as AssetRow[];
}

/** Every file in `folder` and below ('' the whole library), by path, at most `limit` rows. */
export async function listFolderTree(q: Q, folder: string, limit: number): Promise<AssetRow[]> {
  return q<AssetRow>('assets')
    .where((w) => {
      if (folder) w.where('folder', folder).orWhere('folder', 'like', `${escapeLike(folder)}/%`);
    })
    .orderBy([{ column: 'path' }, { column: 'id' }])
    .limit(limit);
}
