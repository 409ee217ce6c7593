import type { Db, Tx } from '../../../kernel/index.ts';

export interface MailSettingsRow {
  scope: string;
  website_id: string | null;
  provider: string;
  config: Record<string, unknown>;
  secrets_sealed: string | null;
  from_address: string | null;
  from_name: string | null;
  reply_to: string | null;
  updated_at: Date;
}

/** `mail_settings`: one row per scope (`default` or a website id). */
export class MailSettingsStore {
  constructor(private readonly db: Db) {}

  /** Holds one scope's settings until `trx` ends, so two saves of it run one after the other. */
  async lock(scope: string, trx: Tx): Promise<void> {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`mail_settings:${scope}`]);
  }

  get(scope: string, trx?: Tx): Promise<MailSettingsRow | undefined> {
    return (trx ?? this.db)<MailSettingsRow>('mail_settings').where({ scope }).first();
  }

  /** The website's own row and the default, in one round trip. */
  async effective(websiteId: string | null): Promise<MailSettingsRow | undefined> {
    const scopes = websiteId ? [websiteId, 'default'] : ['default'];
    const rows = await this.db<MailSettingsRow>('mail_settings').whereIn('scope', scopes);
    return rows.find((r) => r.scope === websiteId) ?? rows.find((r) => r.scope === 'default');
  }

  async put(row: Omit<MailSettingsRow, 'updated_at'>, now: Date, trx: Tx): Promise<MailSettingsRow> {
    const [saved] = await trx<MailSettingsRow>('mail_settings')
      .insert({ ...row, updated_at: now })
      .onConflict('scope')
      .merge()
      .returning('*');
    return saved!;
  }

  async remove(scope: string, trx: Tx): Promise<MailSettingsRow | undefined> {
    const [row] = await trx<MailSettingsRow>('mail_settings').where({ scope }).delete().returning('*');
    return row;
  }
}
