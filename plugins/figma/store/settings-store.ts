import type { Clock, Db, Tx } from '../../../kernel/index.ts';

export interface FigmaSettingsRow {
  token_stored: string | null;
  token_hint: string | null;
  updated_at: Date;
}

/** The only place that writes `figma_settings` (one row, id 1). */
export class FigmaSettingsStore {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async get(trx?: Tx, lock = false): Promise<FigmaSettingsRow | undefined> {
    const q = (trx ?? this.db)('figma_settings').where({ id: 1 }).first('token_stored', 'token_hint', 'updated_at');
    return lock ? q.forUpdate() : q;
  }

  async save(trx: Tx, values: { token_stored: string | null; token_hint: string | null }): Promise<void> {
    await trx('figma_settings')
      .insert({ id: 1, ...values, updated_at: this.clock.now() })
      .onConflict('id')
      .merge();
  }
}
