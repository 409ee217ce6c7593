import type { Db } from '../../../kernel/index.ts';

export interface PresetRow {
  name: string;
  width: number | null;
  height: number | null;
  fit: string;
  format: string;
  quality: number;
  updated_at: Date;
}

export const listPresets = (db: Db) => db<PresetRow>('asset_presets').orderBy('name');

export async function upsertPreset(db: Db, row: Omit<PresetRow, 'updated_at'>): Promise<PresetRow> {
  const [out] = await db('asset_presets')
    .insert({ ...row, updated_at: db.fn.now() })
    .onConflict('name')
    .merge()
    .returning('*');
  return out as PresetRow;
}

export async function deletePreset(db: Db, name: string): Promise<boolean> {
  return (await db('asset_presets').where({ name }).delete()) > 0;
}
