import type { Db, Tx } from '../../../kernel/index.ts';

export interface MfaRow {
  secretSealed: string | null;
  pendingSecretSealed: string | null;
  enabled: boolean;
  lastUsedStep: number | null;
}

/** TOTP enrolment and recovery codes. Secrets arrive sealed; codes arrive as hashes. */
export class MfaStore {
  constructor(private readonly db: Db) {}

  async get(userId: string, trx?: Tx): Promise<MfaRow | null> {
    const row = await (trx ?? this.db)('identity_mfa').where({ user_id: userId }).first();
    if (!row) return null;
    return {
      secretSealed: row.secret_sealed,
      pendingSecretSealed: row.pending_secret_sealed,
      enabled: row.enabled_at !== null,
      lastUsedStep: row.last_used_step === null ? null : Number(row.last_used_step),
    };
  }

  async isEnabled(userId: string, trx?: Tx): Promise<boolean> {
    const row = await (trx ?? this.db)('identity_mfa')
      .where({ user_id: userId })
      .whereNotNull('enabled_at')
      .first('user_id');
    return Boolean(row);
  }

  async savePending(userId: string, sealed: string, now: Date): Promise<void> {
    await this.db('identity_mfa')
      .insert({ user_id: userId, pending_secret_sealed: sealed, updated_at: now })
      .onConflict('user_id')
      .merge({ pending_secret_sealed: sealed, updated_at: now });
  }

  /**
   * Promotes the pending secret. The replay guard starts empty: confirming enrolment is not a
   * sign-in, so the code shown then may still complete the first sign-in (once).
   */
  async enable(userId: string, now: Date, trx: Tx): Promise<void> {
    await trx('identity_mfa')
      .where({ user_id: userId })
      .update({
        secret_sealed: trx.ref('pending_secret_sealed'),
        pending_secret_sealed: null,
        enabled_at: now,
        last_used_step: null,
        updated_at: now,
      });
  }

  /**
   * Records `step` as used when it is later than the last one used. False means the code (or an
   * earlier one) was already accepted: a replay. Atomic, so two concurrent uses cannot both pass.
   */
  async claimStep(userId: string, step: number): Promise<boolean> {
    const n = await this.db('identity_mfa')
      .where({ user_id: userId })
      .andWhere((w) => w.whereNull('last_used_step').orWhere('last_used_step', '<', step))
      .update({ last_used_step: step });
    return n === 1;
  }

  async disable(userId: string, trx: Tx): Promise<void> {
    await trx('identity_mfa').where({ user_id: userId }).delete();
    await trx('identity_recovery_codes').where({ user_id: userId }).delete();
  }

  async replaceRecoveryCodes(userId: string, hashes: string[], now: Date, trx: Tx): Promise<void> {
    await trx('identity_recovery_codes').where({ user_id: userId }).delete();
    await trx('identity_recovery_codes').insert(
      hashes.map((code_hash) => ({ user_id: userId, code_hash, created_at: now })),
    );
  }

  /** Marks an unused code as used; false when there is no such unused code for this user. */
  async useRecoveryCode(userId: string, hash: string, now: Date): Promise<boolean> {
    const n = await this.db('identity_recovery_codes')
      .where({ user_id: userId, code_hash: hash })
      .whereNull('used_at')
      .update({ used_at: now });
    return n === 1;
  }

  async unusedRecoveryCodes(userId: string): Promise<number> {
    const [{ count }] = await this.db('identity_recovery_codes')
      .where({ user_id: userId })
      .whereNull('used_at')
      .count<{ count: number }[]>({ count: '*' });
    return Number(count);
  }
}
