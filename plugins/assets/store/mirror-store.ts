import type { Db } from '../../../kernel/index.ts';

/** The CDN mirror's record of one asset: the key its current copy has on the mirror target. */
export async function recordMirror(db: Db, row: { asset_id: string; version: number; key: string }): Promise<void> {
  await db('asset_mirrors')
    .insert({ ...row, mirrored_at: db.fn.now() })
    .onConflict('asset_id')
    .merge();
}

export async function findMirror(db: Db, assetId: string): Promise<{ key: string } | undefined> {
  return db('asset_mirrors').where({ asset_id: assetId }).first<{ key: string } | undefined>();
}

/** Deletes the record only while it still names `key` (a newer mirror of the asset stays). */
export async function deleteMirror(db: Db, assetId: string, key: string): Promise<void> {
  await db('asset_mirrors').where({ asset_id: assetId, key }).delete();
}

/** The mirror keys of the public assets at these paths whose current version is mirrored. */
export async function mirroredKeysByPath(db: Db, paths: readonly string[]): Promise<Map<string, string>> {
  const rows = await db('assets as a')
    .join('asset_mirrors as m', 'm.asset_id', 'a.id')
    .whereIn('a.path', paths as string[])
    .andWhere('a.visibility', 'public')
    .andWhereRaw('m.version = a.version')
    .select<Array<{ path: string; key: string }>>('a.path', 'm.key');
  return new Map(rows.map((r) => [r.path, r.key]));
}
