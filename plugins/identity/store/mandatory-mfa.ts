import type { Tx } from '../../../kernel/index.ts';

/** SQL behind mandatory 2FA by role: who must enrol, over users, roles, settings and second factors. */
export class MandatoryMfaStore {
  /**
   * Share-locks the user's row and the settings row until `trx` ends. A change of the user's roles
   * (it updates the user's row) or of the settings (it locks their row) that is in progress is waited
   * for, and one that starts later waits for `trx`; read afterwards, the answer is current.
   */
  async lockUserAndSettings(userId: string, trx: Tx): Promise<void> {
    await trx.raw('SELECT 1 FROM users u, identity_security_settings s WHERE u.id = ? AND s.id = 1 FOR SHARE OF u, s', [
      userId,
    ]);
  }

  /** Whether one of the user's roles is in the settings' mandatory list. */
  async required(userId: string, trx: Tx): Promise<boolean> {
    const result = await trx.raw<{ rows: Array<{ required: boolean }> }>(
      `SELECT EXISTS (
         SELECT 1 FROM user_roles ur
           JOIN roles r ON r.id = ur.role_id
           JOIN identity_security_settings s ON s.id = 1
          WHERE ur.user_id = ? AND r.name = ANY(s.mfa_required_roles)) AS required`,
      [userId],
    );
    return result.rows[0].required;
  }

  /** Users holding one of these roles who have no second factor enabled. */
  async membersWithoutSecondFactor(roleNames: readonly string[], trx: Tx): Promise<string[]> {
    if (!roleNames.length) return [];
    const result = await trx.raw<{ rows: Array<{ user_id: string }> }>(
      `SELECT DISTINCT ur.user_id
         FROM user_roles ur
         JOIN roles r ON r.id = ur.role_id
        WHERE r.name = ANY(?::text[])
          AND NOT EXISTS (SELECT 1 FROM identity_mfa m WHERE m.user_id = ur.user_id AND m.enabled_at IS NOT NULL)`,
      [[...roleNames]],
    );
    return result.rows.map((r) => r.user_id);
  }
}
