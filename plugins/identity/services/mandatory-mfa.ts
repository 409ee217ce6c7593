import type { SessionService, Tx } from '../../../kernel/index.ts';
import type { MandatoryMfaStore } from '../store/mandatory-mfa.ts';
import type { MfaStore } from '../store/mfa.ts';

/**
 * Mandatory 2FA by role holds for sessions too: a user of a mandatory role without a second factor
 * holds no session. Sign-in checks it before opening one; the changes that can make it false end
 * the sessions concerned at once (a role becoming mandatory, a user given such a role), so open
 * sessions cost nothing per request. The checks lock the user's row and the settings row, so a
 * sign-in or a 2FA disable racing with such a change sees its outcome.
 */
export class MandatoryMfa {
  constructor(private readonly deps: { store: MandatoryMfaStore; mfa: MfaStore; sessions: SessionService }) {}

  /** In `trx`: whether one of the user's roles requires 2FA, as committed now. */
  async required(userId: string, trx: Tx): Promise<boolean> {
    await this.deps.store.lockUserAndSettings(userId, trx);
    return this.deps.store.required(userId, trx);
  }

  /** In `trx`: whether the user must enrol before holding a session. */
  async enrolmentDue(userId: string, trx: Tx): Promise<boolean> {
    return (await this.required(userId, trx)) && !(await this.deps.mfa.isEnabled(userId, trx));
  }

  hasSecondFactor(userId: string, trx: Tx): Promise<boolean> {
    return this.deps.mfa.isEnabled(userId, trx);
  }

  /** Ends the sessions of the members of these roles who have no second factor. */
  async endSessionsOfUnenrolled(roleNames: readonly string[], trx: Tx): Promise<void> {
    await this.deps.sessions.revokeAllForUsers(await this.deps.store.membersWithoutSecondFactor(roleNames, trx), trx);
  }

  /** Ends the user's sessions when their roles now require 2FA and they have none. */
  async endSessionsIfEnrolmentDue(userId: string, trx: Tx): Promise<void> {
    if (await this.enrolmentDue(userId, trx)) await this.deps.sessions.revokeAllForUser(userId, trx);
  }
}
