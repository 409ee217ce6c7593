import type { Clock, Db, Tx } from '../../../kernel/index.ts';

export type SettingsKind = 'text' | 'image' | 'translate';

export interface StoredSettings {
  settings: Record<string, unknown>;
  /** Sealed (`v1:...`) or `plain:<key>`; null when no key is kept. */
  apiKey: string | null;
}

/** The only place that writes `ai_settings`. */
export class AiSettingsStore {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async get(kind: SettingsKind, trx?: Tx): Promise<StoredSettings | undefined> {
    const q = (trx ?? this.db)('ai_settings').where({ kind }).first('settings', 'api_key');
    const row = await (trx ? q.forUpdate() : q);
    return row && { settings: row.settings, apiKey: row.api_key };
  }

  async put(kind: SettingsKind, value: StoredSettings, trx: Tx): Promise<void> {
    await trx('ai_settings')
      .insert({ kind, settings: value.settings, api_key: value.apiKey, updated_at: this.clock.now() })
      .onConflict('kind')
      .merge();
  }
}
