import type { Db, Tx, UserDirectory } from '../../../kernel/index.ts';

/**
 * Who must enrol a second factor by role: the kernel's user directory (users and their roles) with
 * this plugin's settings and second factors.
 */
export class MandatoryMfaStore {
  constructor(private readonly users: Pick<UserDirectory, 'lockUser' | 'roleNames' | 'membersOf'>) {}

  /**
   * Share-locks the user's row and the settings row until `trx` ends, in that order. A change of the
   * user's roles (it updates the user's row) or of the settings (it locks their row) that is in
   * progress is waited for, and one that starts later waits for `trx`; read afterwards, the answer is
   * current.
   */
  async lockUserAndSettings(userId: string, trx: Tx): Promise<void> {
    await this.users.lockUser(userId, trx);
    await trx('identity_security_settings').where({ id: 1 }).forShare().first('id');
  }

  /** Whether one of the user's roles is in the settings' mandatory list. */
  async required(userId: string, trx: Tx): Promise<boolean> {
    const required = await this.requiredRoles(trx);
    if (!required.length) return false;
    return (await this.users.roleNames(userId, trx)).some((name) => required.includes(name));
  }

  /** Users holding one of these roles who have no second factor enabled. */
  async membersWithoutSecondFactor(roleNames: readonly string[], trx: Tx): Promise<string[]> {
    const members = await this.users.membersOf(roleNames, trx);
    if (!members.length) return [];
    const enrolled = new Set<string>(
      await trx('identity_mfa').whereIn('user_id', members).whereNotNull('enabled_at').pluck('user_id'),
    );
    return members.filter((id) => !enrolled.has(id));
  }

  private async requiredRoles(q: Db | Tx): Promise<string[]> {
    const row = await q('identity_security_settings').where({ id: 1 }).first('mfa_required_roles');
    return (row?.mfa_required_roles as string[] | undefined) ?? [];
  }
}
