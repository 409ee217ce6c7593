import {
  diffForAudit,
  type AuditContext,
  type AuditWriter,
  type Clock,
  type Db,
  conflict,
  notFound,
  type Logger,
  assertPasswordAllowed,
  hashPassword,
  type SessionService,
  type UserDirectory,
  inTransaction,
  type WriteOptions,
} from '../../../kernel/index.ts';
import type { UserRecord, UserStore } from '../store/users.ts';
import type { GrantGuard } from './grant-guard.ts';
import type { MandatoryMfa } from './mandatory-mfa.ts';
import { keepingAnAdministrator } from './manager-guard.ts';
import { FORCED_TTL_MS, type PasswordResetService } from './password-reset.ts';
import type { SecuritySettingsService } from './security-settings.ts';

export interface UserInput {
  email: string;
  displayName?: string;
  password?: string;
  roles: string[];
  active?: boolean;
}

export type UserPatch = Partial<UserInput>;

export interface ForcedResetResult {
  method: 'password' | 'email';
  mailSent?: boolean;
}

// The password never reaches the audit row: the secrets rule turns it into `changed`.
const AUDIT = { allow: ['email', 'displayName', 'active', 'roles', 'password'], secrets: ['password'] };

const snapshot = (u: Pick<UserRecord, 'email' | 'displayName' | 'active' | 'roles'>) => ({
  email: u.email,
  displayName: u.displayName,
  active: u.active,
  roles: [...u.roles].sort(),
});

/**
 * User management for holders of `users:manage`. A manager gives only roles whose keys they hold and
 * changes only users whose keys they hold (GrantGuard). Deactivating a user or changing their
 * password revokes their sessions; no change may leave the installation without an administrator.
 */
export class UserAdminService {
  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      audit: AuditWriter;
      log: Logger;
      sessions: SessionService;
      directory: UserDirectory;
      store: UserStore;
      settings: SecuritySettingsService;
      resets: PasswordResetService;
      grants: GrantGuard;
      mandatoryMfa: MandatoryMfa;
    },
  ) {}

  list(query: { limit: number; offset: number; q?: string }) {
    return this.deps.store.list(query);
  }

  async get(id: string): Promise<UserRecord> {
    const user = await this.deps.store.find(id);
    if (!user) throw notFound('User not found');
    return user;
  }

  async create(ctx: AuditContext, input: UserInput, opts: WriteOptions = {}): Promise<UserRecord> {
    const policy = await this.deps.settings.passwordPolicy();
    try {
      return await inTransaction(this.deps.db, opts.trx, async (trx) => {
        await this.deps.grants.assertMayGrantRoles(ctx.actor, input.roles, trx);
        const { id } = await this.deps.directory.create(
          { ...input, email: input.email.trim(), roles: [...new Set(input.roles)] },
          policy,
          trx,
        );
        const user = (await this.deps.store.find(id, trx))!;
        await this.deps.audit.record(
          ctx,
          {
            action: 'user.create',
            targetType: 'user',
            targetId: id,
            targetLabel: user.email,
            ...diffForAudit(null, snapshot(user), AUDIT),
          },
          trx,
        );
        return user;
      });
    } catch (err) {
      // The kernel directory names its own code; the spec's code for a taken unique field is UNIQUE_VIOLATION.
      // Matched by code, not instanceof: a test run may load the kernel's error module twice.
      if ((err as { code?: unknown }).code === 'EMAIL_TAKEN')
        throw conflict('email is already in use', 'UNIQUE_VIOLATION', 'email');
      throw err;
    }
  }

  async update(ctx: AuditContext, id: string, patch: UserPatch, opts: WriteOptions = {}): Promise<UserRecord> {
    const policy = patch.password !== undefined ? await this.deps.settings.passwordPolicy() : null;
    return inTransaction(this.deps.db, opts.trx, async (trx) => {
      const before = await this.deps.store.find(id, trx);
      if (!before) throw notFound('User not found');
      await this.deps.grants.assertMayChangeUser(ctx.actor, before, trx);
      if (patch.roles)
        await this.deps.grants.assertMayGrantRoles(
          ctx.actor,
          patch.roles.filter((r) => !before.roles.includes(r)),
          trx,
        );
      const email = patch.email?.trim();
      const next = {
        email: email ?? before.email,
        displayName: patch.displayName ?? before.displayName,
        active: patch.active ?? before.active,
        roles: patch.roles ? [...new Set(patch.roles)] : before.roles,
      };
      const passwordSet = patch.password !== undefined;
      const diff = diffForAudit(
        { ...snapshot(before), password: false },
        { ...snapshot(next), password: passwordSet },
        AUDIT,
      );
      if (!diff) return before;
      if (passwordSet) assertPasswordAllowed(patch.password!, next.email, policy!);
      const passwordHash = passwordSet ? await hashPassword(patch.password!) : undefined;
      await keepingAnAdministrator(this.deps.store, trx, async () => {
        await this.deps.directory.update(
          id,
          { email, displayName: patch.displayName, active: patch.active, passwordHash },
          this.deps.clock.now(),
          trx,
        );
        if (patch.roles) await this.deps.directory.setRoles(id, next.roles, trx);
      });
      if (passwordSet || (before.active && !next.active)) await this.deps.sessions.revokeAllForUser(id, trx);
      else if (next.roles.some((r) => !before.roles.includes(r)))
        await this.deps.mandatoryMfa.endSessionsIfEnrolmentDue(id, trx);
      await this.deps.audit.record(
        ctx,
        { action: 'user.update', targetType: 'user', targetId: id, targetLabel: next.email, ...diff },
        trx,
      );
      return (await this.deps.store.find(id, trx))!;
    });
  }

  async remove(ctx: AuditContext, id: string, opts: WriteOptions = {}): Promise<void> {
    await inTransaction(this.deps.db, opts.trx, async (trx) => {
      const before = await this.deps.store.find(id, trx);
      if (!before) throw notFound('User not found');
      await this.deps.grants.assertMayChangeUser(ctx.actor, before, trx);
      await keepingAnAdministrator(this.deps.store, trx, () => this.deps.directory.delete(id, trx));
      await this.deps.audit.record(
        ctx,
        {
          action: 'user.delete',
          targetType: 'user',
          targetId: id,
          targetLabel: before.email,
          ...diffForAudit(snapshot(before), null, AUDIT),
        },
        trx,
      );
    });
  }

  /**
   * Forced reset by an administrator. With `password`, that password is set (policy applies). Without
   * it, the current password is cleared and a reset link is e-mailed to the user. Either way every
   * session of the user is revoked and earlier reset links are voided.
   */
  async forceReset(
    ctx: AuditContext,
    id: string,
    password?: string,
    opts: WriteOptions = {},
  ): Promise<ForcedResetResult> {
    const policy = password !== undefined ? await this.deps.settings.passwordPolicy() : null;
    const { email, token } = await inTransaction(this.deps.db, opts.trx, async (trx) => {
      const user = await this.deps.store.find(id, trx);
      if (!user) throw notFound('User not found');
      await this.deps.grants.assertMayChangeUser(ctx.actor, user, trx);
      if (password !== undefined) assertPasswordAllowed(password, user.email, policy!);
      const passwordHash = password !== undefined ? await hashPassword(password) : null;
      await this.deps.directory.update(id, { passwordHash }, this.deps.clock.now(), trx);
      await this.deps.sessions.revokeAllForUser(id, trx);
      await this.deps.resets.voidTokens(id, trx);
      const link = password === undefined ? await this.deps.resets.issueToken(id, FORCED_TTL_MS, trx) : null;
      const method = password === undefined ? 'email' : 'password';
      await this.deps.audit.record(
        ctx,
        {
          action: 'user.reset_password',
          targetType: 'user',
          targetId: id,
          targetLabel: user.email,
          before: null,
          after: { password: 'changed', method },
        },
        trx,
      );
      return { email: user.email, token: link };
    });
    if (token === null) return { method: 'password' };
    try {
      await this.deps.resets.sendLink(email, token, 'forced');
      return { method: 'email', mailSent: true };
    } catch (err) {
      // The reset itself stands (sessions are gone); the administrator can send the link again.
      this.deps.log.error({ err, userId: id }, 'forced password reset: e-mail could not be sent');
      return { method: 'email', mailSent: false };
    }
  }
}
