import type { Db, Tx } from '../../../kernel/index.ts';

/** Editor settings, one row per key (jsonb value). */
export class SettingsStore {
  constructor(private readonly db: Db) {}

  async get(key: string, trx?: Tx): Promise<unknown | undefined> {
    const row = await (trx ?? this.db)('content_settings').where({ key }).first();
    return row?.value;
  }

  async put(key: string, value: unknown, trx: Tx): Promise<void> {
    await trx('content_settings')
      .insert({ key, value: JSON.stringify(value), updated_at: trx.fn.now() })
      .onConflict('key')
      .merge();
  }

  async remove(key: string, trx: Tx): Promise<boolean> {
    return (await trx('content_settings').where({ key }).delete()) > 0;
  }
}
