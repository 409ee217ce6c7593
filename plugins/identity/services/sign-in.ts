import {
  type Db,
  type UserActor,
  tooManyRequests,
  unauthorized,
  type Logger,
  verifyPassword,
  type PermissionRegistry,
  type RoleDirectory,
  type SessionService,
} from '../../../kernel/index.ts';
import type { UserStore } from '../store/users.ts';
import type { MandatoryMfa } from './mandatory-mfa.ts';
import type { MfaService } from './mfa.ts';
import { refuseLocalLogin } from './oidc-settings.ts';
import type { PendingSignIns } from './pending-sign-ins.ts';
import { LoginLockout } from './throttle.ts';

/** Wrong codes one pending sign-in may send before it is refused with 429. */
export const MAX_CHALLENGE_FAILURES = 5;

/** The signed-in user as `GET /auth/me` and the login answers show it. */
export interface Me {
  id: string;
  email: string;
  displayName: string;
  roles: string[];
  permissions: string[];
}

export interface StartedSession {
  token: string;
  expiresAt: Date;
  me: Me;
}

export type LoginOutcome =
  | { kind: 'session'; session: StartedSession }
  | { kind: 'mfa'; mfaToken: string }
  | { kind: 'enrolment'; enrollmentToken: string };

export interface ClientMeta {
  ip: string;
  userAgent?: string;
}

/**
 * Password sign-in and the steps that may follow it. Sign-in and its second step are not audited
 * (spec); failures are logged with the user id when the e-mail belongs to an account. Each step is
 * limited per client address by its route (every attempt counts) before anything is looked up or hashed.
 */
export class SignInService {
  constructor(
    private readonly deps: {
      db: Db;
      sessions: SessionService;
      permissions: PermissionRegistry;
      log: Logger;
      users: UserStore;
      mfa: MfaService;
      mandatoryMfa: MandatoryMfa;
      lockout: LoginLockout;
      pending: PendingSignIns;
      roles: RoleDirectory;
      /** The single-sign-on rule for password sign-in (`localLogin`; everyone while SSO is off). */
      localLogin: { localLogin(): Promise<'all' | 'admins' | 'none'> };
    },
  ) {}

  async login(email: string, password: string, meta: ClientMeta): Promise<LoginOutcome> {
    // With single sign-on's `localLogin: none` no password is looked at (nor counted against the lockout).
    const rule = await this.deps.localLogin.localLogin();
    if (rule === 'none') {
      this.deps.log.warn({ userId: null, ip: meta.ip, reason: 'password sign-in off' }, 'sign-in failed');
      refuseLocalLogin(rule);
    }
    const key = LoginLockout.key(email);
    await this.refuseWhileLocked(key);
    const account = await this.deps.users.credentialsByEmail(email);
    // verifyPassword spends the same time when there is no hash, so unknown e-mails are not faster.
    const passwordOk = await verifyPassword(password, account?.passwordHash);
    if (!account || !passwordOk || !account.active) {
      await this.deps.lockout.fail(key);
      const reason = !account ? 'unknown e-mail' : !passwordOk ? 'wrong password' : 'account inactive';
      this.deps.log.warn({ userId: account?.id ?? null, ip: meta.ip, reason }, 'sign-in failed');
      throw unauthorized('Invalid e-mail or password', 'INVALID_CREDENTIALS');
    }
    // Break-glass: with `localLogin: admins` only holders of every key ('*') keep password sign-in.
    // Checked after the password, so the answer says nothing about an account to who lacks it.
    if (rule === 'admins' && !(await this.holdsEveryKey(account.roles))) {
      this.deps.log.warn(
        { userId: account.id, ip: meta.ip, reason: 'password sign-in for administrators only' },
        'sign-in failed',
      );
      refuseLocalLogin(rule);
    }
    // The lockout counter is cleared only once a session exists: a right password followed by
    // wrong second-factor codes still counts towards the lockout.
    if (await this.deps.mfa.isEnabled(account.id)) {
      return { kind: 'mfa', mfaToken: await this.deps.pending.issue('mfa', account.id, account.email) };
    }
    // Checked and the session opened in one transaction that waits for a role or settings change in
    // progress, so no session slips past a role becoming mandatory.
    const session = await this.deps.db.transaction(async (trx) =>
      (await this.deps.mandatoryMfa.enrolmentDue(account.id, trx))
        ? null
        : this.deps.sessions.create(account.id, meta, trx),
    );
    if (!session)
      return {
        kind: 'enrolment',
        enrollmentToken: await this.deps.pending.issue('enrolment', account.id, account.email),
      };
    await this.deps.lockout.succeed(key);
    return { kind: 'session', session: await this.opened(session) };
  }

  /** Second step: a TOTP or recovery code for a pending `mfaToken`. */
  async challenge(mfaToken: string, code: string, meta: ClientMeta): Promise<StartedSession> {
    const entry = await this.deps.pending.get('mfa', mfaToken);
    if (!entry) throw unauthorized('The sign-in expired or is unknown; sign in again', 'MFA_TOKEN_INVALID');
    const key = LoginLockout.key(entry.email);
    if (entry.failures >= MAX_CHALLENGE_FAILURES) {
      throw tooManyRequests(
        'Too many wrong codes for this sign-in; sign in again',
        await this.deps.lockout.retryAfter(key),
        'MFA_LOCKED',
      );
    }
    await this.refuseWhileLocked(key);
    if (!(await this.deps.mfa.verifySecondFactor(entry.userId, code))) {
      await this.deps.pending.fail(mfaToken, entry);
      await this.deps.lockout.fail(key);
      this.deps.log.warn({ userId: entry.userId, ip: meta.ip }, 'second factor failed');
      throw unauthorized('The code is not valid', 'MFA_CODE_INVALID');
    }
    if (!(await this.deps.pending.consume(mfaToken)))
      throw unauthorized('The sign-in expired or is unknown; sign in again', 'MFA_TOKEN_INVALID');
    await this.deps.lockout.succeed(key);
    return this.startSession(entry.userId, meta);
  }

  /** Who is enrolling with an `enrollmentToken`, or null when it is unknown or expired. */
  async enrolee(enrollmentToken: string): Promise<{ userId: string; email: string } | null> {
    const entry = await this.deps.pending.get('enrolment', enrollmentToken);
    return entry ? { userId: entry.userId, email: entry.email } : null;
  }

  /** Enrolment finished: the pending sign-in becomes a session. */
  async finishEnrolment(enrollmentToken: string, meta: ClientMeta): Promise<StartedSession> {
    const entry = await this.deps.pending.get('enrolment', enrollmentToken);
    if (!entry || !(await this.deps.pending.consume(enrollmentToken)))
      throw unauthorized('The sign-in expired or is unknown; sign in again', 'ENROLLMENT_TOKEN_INVALID');
    await this.deps.lockout.succeed(LoginLockout.key(entry.email));
    return this.startSession(entry.userId, meta);
  }

  me(actor: UserActor): Me {
    return {
      id: actor.id,
      email: actor.email,
      displayName: actor.displayName,
      roles: actor.roles,
      permissions: this.deps.permissions.effective(actor.permissions),
    };
  }

  private async startSession(userId: string, meta: ClientMeta): Promise<StartedSession> {
    return this.opened(await this.deps.sessions.create(userId, meta));
  }

  private async opened(session: { token: string; id: string; expiresAt: Date }): Promise<StartedSession> {
    // Resolving the fresh token gives roles and permissions exactly as later requests will see them,
    // and refuses an account deactivated between the password and the second step.
    const actor = await this.deps.sessions.resolve(session.token);
    if (!actor) {
      await this.deps.sessions.revoke(session.id);
      throw unauthorized('Invalid e-mail or password', 'INVALID_CREDENTIALS');
    }
    return { token: session.token, expiresAt: session.expiresAt, me: this.me(actor) };
  }

  private async holdsEveryKey(roles: string[]): Promise<boolean> {
    return (await this.deps.roles.keysByName(roles)).some((r) => r.permissions.includes('*'));
  }

  private async refuseWhileLocked(key: string): Promise<void> {
    const wait = await this.deps.lockout.retryAfter(key);
    if (wait) throw tooManyRequests('Too many failed sign-in attempts; try again later', wait, 'LOGIN_LOCKED');
  }
}
