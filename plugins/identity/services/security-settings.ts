import {
  type AuditContext,
  type AuditWriter,
  diffForAudit,
  type Clock,
  type Db,
  badRequest,
  conflict,
  type PasswordPolicy,
  type RoleDirectory,
  inTransaction,
  type Tx,
  type WriteOptions,
} from '../../../kernel/index.ts';
import type { SecuritySettings, SettingsStore } from '../store/settings.ts';
import type { MandatoryMfa } from './mandatory-mfa.ts';

export type { SecuritySettings };

/** The read side other plugins get (the mail plugin needs `mailLogRetentionDays`). */
export interface SecuritySettingsReader {
  get(): Promise<SecuritySettings>;
}

export interface SecuritySettingsInput {
  mfaRequiredRoles?: string[];
  passwordPolicy?: Partial<PasswordPolicy>;
  mailLogRetentionDays?: number | null;
}

// Flattened so the audit row names exactly the leaf that changed, e.g. `passwordPolicy.minLength`.
const AUDIT_FIELDS = [
  'mfaRequiredRoles',
  'passwordPolicy.minLength',
  'passwordPolicy.requireThreeClasses',
  'mailLogRetentionDays',
];

function flatten(s: SecuritySettings): Record<string, unknown> {
  return {
    mfaRequiredRoles: [...s.mfaRequiredRoles].sort(),
    'passwordPolicy.minLength': s.passwordPolicy.minLength,
    'passwordPolicy.requireThreeClasses': s.passwordPolicy.requireThreeClasses,
    mailLogRetentionDays: s.mailLogRetentionDays,
  };
}

/**
 * Mandatory 2FA by role, the password policy and the mail log retention: one record, audited on
 * change. Saving the mandatory roles ends the sessions of their members who have no second factor.
 */
export class SecuritySettingsService implements SecuritySettingsReader {
  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      audit: AuditWriter;
      store: SettingsStore;
      roles: RoleDirectory;
      mandatoryMfa: MandatoryMfa;
    },
  ) {}

  get(): Promise<SecuritySettings> {
    return this.deps.store.read();
  }

  async passwordPolicy(): Promise<PasswordPolicy> {
    return (await this.deps.store.read()).passwordPolicy;
  }

  /** Whether any of these roles requires a second factor. */
  async mfaRequiredFor(roles: string[]): Promise<boolean> {
    const { mfaRequiredRoles } = await this.deps.store.read();
    return roles.some((r) => mfaRequiredRoles.includes(r));
  }

  /** Fields left out keep their stored value. Writes an audit row with the changed fields only. */
  async update(ctx: AuditContext, input: SecuritySettingsInput, opts: WriteOptions = {}): Promise<SecuritySettings> {
    return inTransaction(this.deps.db, opts.trx, async (trx) => {
      const before = await this.deps.store.read(trx, true);
      const after: SecuritySettings = {
        mfaRequiredRoles: input.mfaRequiredRoles
          ? [...new Set(input.mfaRequiredRoles)].sort()
          : before.mfaRequiredRoles,
        passwordPolicy: { ...before.passwordPolicy, ...input.passwordPolicy },
        mailLogRetentionDays:
          input.mailLogRetentionDays === undefined ? before.mailLogRetentionDays : input.mailLogRetentionDays,
      };
      if (input.mfaRequiredRoles) {
        const known = await this.deps.roles.existingNames(after.mfaRequiredRoles, trx);
        const unknown = after.mfaRequiredRoles.filter((r) => !known.includes(r));
        if (unknown.length)
          throw badRequest(`mfaRequiredRoles: unknown role ${unknown.join(', ')}`, 'mfaRequiredRoles');
      }
      await this.refuseRequiringOwnRoleWithout2fa(ctx, input, after.mfaRequiredRoles, trx);
      // Also when the list is saved unchanged: that ends sessions opened before a role was mandatory
      // by a version that did not end them, or slipped in otherwise.
      if (input.mfaRequiredRoles) await this.deps.mandatoryMfa.endSessionsOfUnenrolled(after.mfaRequiredRoles, trx);
      const diff = diffForAudit(flatten(before), flatten(after), { allow: AUDIT_FIELDS });
      if (!diff) return before;
      await this.deps.store.write(after, this.deps.clock.now(), trx);
      await this.deps.audit.record(
        ctx,
        {
          action: 'setting.security_update',
          targetType: 'setting',
          targetId: 'security',
          targetLabel: 'security settings',
          ...diff,
        },
        trx,
      );
      return after;
    });
  }

  /**
   * Whoever makes their own role require 2FA must have it already (as code hosts ask of an owner
   * requiring it for an organisation): otherwise saving would end their own session and leave the
   * administrators' role mandatory before anyone proved they can enrol.
   */
  private async refuseRequiringOwnRoleWithout2fa(
    ctx: AuditContext,
    input: SecuritySettingsInput,
    required: string[],
    trx: Tx,
  ): Promise<void> {
    if (!input.mfaRequiredRoles || ctx.actor.type !== 'user') return;
    const own = ctx.actor.roles.filter((r) => required.includes(r));
    if (own.length && !(await this.deps.mandatoryMfa.hasSecondFactor(ctx.actor.id, trx))) {
      throw conflict(
        `Enable two-factor authentication for your own account before making your role ${own.join(', ')} require it`,
        'MFA_NOT_ENABLED',
        'mfaRequiredRoles',
      );
    }
  }
}
