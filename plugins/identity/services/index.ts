import type { PluginDeps } from '../../../kernel/index.ts';
import type { IdentityConfig } from '../config.ts';
import { MandatoryMfaStore } from '../store/mandatory-mfa.ts';
import { MfaStore } from '../store/mfa.ts';
import { ResetTokenStore } from '../store/reset-tokens.ts';
import { SettingsStore } from '../store/settings.ts';
import { UserStore } from '../store/users.ts';
import { GrantGuard } from './grant-guard.ts';
import { MandatoryMfa } from './mandatory-mfa.ts';
import { MfaService } from './mfa.ts';
import { PasswordResetService } from './password-reset.ts';
import { PendingSignIns } from './pending-sign-ins.ts';
import { RoleService } from './roles.ts';
import { SecuritySettingsService } from './security-settings.ts';
import { SignInService } from './sign-in.ts';
import { LoginLockout, WindowLimiter } from './throttle.ts';
import { UserAdminService } from './users.ts';

export type IdentityNeeds =
  | 'db'
  | 'clock'
  | 'config'
  | 'sessions'
  | 'users'
  | 'roles'
  | 'permissions'
  | 'audit'
  | 'secretBox'
  | 'mail';
export type IdentityDeps = PluginDeps<IdentityNeeds, never, typeof IdentityConfig>;

const MINUTE = 60_000;

/** Numbers the spec leaves open (README, "Design decisions"); per-address counts come from the plugin config. */
export const LIMITS = {
  mfaTokenTtlMs: 5 * MINUTE,
  enrollmentTokenTtlMs: 15 * MINUTE,
  loginPerAddressWindowMs: MINUTE,
  challengePerAddressWindowMs: MINUTE,
  forgotPerAddressWindowMs: 15 * MINUTE,
  forgotPerEmail: { max: 3, windowMs: 60 * MINUTE },
  setupFailures: { max: 5, windowMs: 5 * MINUTE },
};

/**
 * Builds the plugin's stores and services for one kernel. The in-memory parts (lockout, pending
 * sign-ins, limiters) live here, so each kernel instance has its own.
 */
export function createIdentityServices(deps: IdentityDeps) {
  const { db, clock, config, log, pluginConfig } = deps;
  const userStore = new UserStore(db);
  const settingsStore = new SettingsStore(db);
  const mfaStore = new MfaStore(db);
  const grants = new GrantGuard({ permissions: deps.permissions, roles: deps.roles });
  const mandatoryMfa = new MandatoryMfa({ store: new MandatoryMfaStore(db), mfa: mfaStore, sessions: deps.sessions });
  const lockout = new LoginLockout({
    clock,
    maxFailures: pluginConfig.LOGIN_LOCKOUT_MAX_FAILURES,
    windowMs: pluginConfig.LOGIN_LOCKOUT_WINDOW_SECONDS * 1000,
  });
  const pending = new PendingSignIns({
    clock,
    ttlMs: { mfa: LIMITS.mfaTokenTtlMs, enrolment: LIMITS.enrollmentTokenTtlMs },
  });

  const settings = new SecuritySettingsService({
    db,
    clock,
    audit: deps.audit,
    store: settingsStore,
    roles: deps.roles,
    mandatoryMfa,
  });
  const resets = new PasswordResetService({
    db,
    clock,
    config,
    mail: deps.mail,
    log,
    sessions: deps.sessions,
    store: new ResetTokenStore(db),
    users: userStore,
    directory: deps.users,
    settings,
    lockout,
    perAddress: new WindowLimiter({
      clock,
      max: pluginConfig.FORGOT_PASSWORD_RATE_LIMIT_PER_WINDOW,
      windowMs: LIMITS.forgotPerAddressWindowMs,
    }),
    perEmail: new WindowLimiter({ clock, ...LIMITS.forgotPerEmail }),
  });
  const mfa = new MfaService({
    db,
    clock,
    config,
    secretBox: deps.secretBox,
    log,
    store: mfaStore,
    users: userStore,
    settings,
    mandatoryMfa,
    lockout,
    setupLimiter: new WindowLimiter({ clock, ...LIMITS.setupFailures }),
  });
  const signIn = new SignInService({
    db,
    sessions: deps.sessions,
    permissions: deps.permissions,
    log,
    users: userStore,
    mfa,
    mandatoryMfa,
    lockout,
    pending,
    loginPerAddress: new WindowLimiter({
      clock,
      max: pluginConfig.LOGIN_RATE_LIMIT_PER_MINUTE,
      windowMs: LIMITS.loginPerAddressWindowMs,
    }),
    challengePerAddress: new WindowLimiter({
      clock,
      max: pluginConfig.MFA_CHALLENGE_RATE_LIMIT_PER_MINUTE,
      windowMs: LIMITS.challengePerAddressWindowMs,
    }),
  });
  const users = new UserAdminService({
    db,
    clock,
    audit: deps.audit,
    log,
    sessions: deps.sessions,
    directory: deps.users,
    store: userStore,
    settings,
    resets,
    grants,
    mandatoryMfa,
  });
  const roles = new RoleService({
    db,
    clock,
    audit: deps.audit,
    permissions: deps.permissions,
    roles: deps.roles,
    users: userStore,
    settings: settingsStore,
    grants,
  });

  return {
    config,
    sessions: deps.sessions,
    permissions: deps.permissions,
    settings,
    resets,
    mfa,
    signIn,
    users,
    roles,
  };
}

export type IdentityServices = ReturnType<typeof createIdentityServices>;
