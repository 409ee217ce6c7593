import type { Db, Tx, PasswordPolicy } from '../../../kernel/index.ts';

/** The security settings record (single row). */
export interface SecuritySettings {
  mfaRequiredRoles: string[];
  passwordPolicy: PasswordPolicy;
  mailLogRetentionDays: number | null;
}

interface SettingsRow {
  mfa_required_roles: string[];
  password_min_length: number;
  password_require_three_classes: boolean;
  mail_log_retention_days: number | null;
}

const TABLE = 'identity_security_settings';

export class SettingsStore {
  constructor(private readonly db: Db) {}

  /** Reads the row; `forUpdate` locks it for a read-modify-write inside `trx`. */
  async read(trx?: Tx, forUpdate = false): Promise<SecuritySettings> {
    const query = (trx ?? this.db)(TABLE).where({ id: 1 });
    const row: SettingsRow | undefined = await (forUpdate ? query.forUpdate() : query).first();
    if (!row) throw new Error('identity_security_settings row is missing (migration 0001_identity not applied?)');
    return {
      mfaRequiredRoles: row.mfa_required_roles ?? [],
      passwordPolicy: { minLength: row.password_min_length, requireThreeClasses: row.password_require_three_classes },
      mailLogRetentionDays: row.mail_log_retention_days,
    };
  }

  async write(settings: SecuritySettings, now: Date, trx: Tx): Promise<void> {
    await trx(TABLE).where({ id: 1 }).update({
      mfa_required_roles: settings.mfaRequiredRoles,
      password_min_length: settings.passwordPolicy.minLength,
      password_require_three_classes: settings.passwordPolicy.requireThreeClasses,
      mail_log_retention_days: settings.mailLogRetentionDays,
      updated_at: now,
    });
  }

  /** Keeps the mandatory-2FA list in step with a renamed role. */
  async renameRole(from: string, to: string, trx: Tx): Promise<void> {
    await trx.raw(`UPDATE ${TABLE} SET mfa_required_roles = array_replace(mfa_required_roles, ?, ?) WHERE id = 1`, [
      from,
      to,
    ]);
  }

  /** Drops a deleted role from the mandatory-2FA list, so a later role of that name is not caught by it. */
  async forgetRole(name: string, trx: Tx): Promise<void> {
    await trx.raw(`UPDATE ${TABLE} SET mfa_required_roles = array_remove(mfa_required_roles, ?) WHERE id = 1`, [name]);
  }
}
