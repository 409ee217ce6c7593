import type { PluginDeps, RouteRateLimit } from '../../../kernel/index.ts';
import type { IdentityConfig } from '../config.ts';
import { MandatoryMfaStore } from '../store/mandatory-mfa.ts';
import { MfaStore } from '../store/mfa.ts';
import { OidcStore } from '../store/oidc.ts';
import { ResetTokenStore } from '../store/reset-tokens.ts';
import { SettingsStore } from '../store/settings.ts';
import { UserStore } from '../store/users.ts';
import { GrantGuard } from './grant-guard.ts';
import { MandatoryMfa } from './mandatory-mfa.ts';
import { MfaService } from './mfa.ts';
import { OidcClient } from './oidc-client.ts';
import { OidcSettingsService } from './oidc-settings.ts';
import { OidcSignInService } from './oidc-sign-in.ts';
import { PasswordResetService } from './password-reset.ts';
import { PendingSignIns } from './pending-sign-ins.ts';
import { RoleService } from './roles.ts';
import { SecuritySettingsService } from './security-settings.ts';
import { SignInService } from './sign-in.ts';
import { LoginLockout } from './throttle.ts';
import { UserAdminService } from './users.ts';

export type IdentityNeeds =
  | 'sharedState'
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
export type IdentityDeps = PluginDeps<IdentityNeeds, 'outboundFetch', typeof IdentityConfig>;

const MINUTE = 60_000;

/** Numbers the spec leaves open (README, "Design decisions"); per-address counts come from the plugin config. */
export const LIMITS = {
  mfaTokenTtlMs: 5 * MINUTE,
  enrollmentTokenTtlMs: 15 * MINUTE,
  loginPerAddressWindowMs: MINUTE,
  challengePerAddressWindowMs: MINUTE,
  forgotPerAddressWindowMs: 15 * MINUTE,
  oidcStartPerAddressWindowMs: MINUTE,
  forgotPerEmail: { maxFailures: 3, windowMs: 60 * MINUTE },
  setupFailures: { maxFailures: 5, windowMs: 5 * MINUTE },
};

/**
 * Builds the plugin's stores and services for one kernel. Lockouts and pending sign-ins live in the
 * kernel's shared state, so every core-api replica sees the same ones.
 */
export function createIdentityServices(deps: IdentityDeps) {
  const { db, clock, config, log, pluginConfig } = deps;
  const userStore = new UserStore(db, deps.users);
  const settingsStore = new SettingsStore(db);
  const mfaStore = new MfaStore(db);
  const grants = new GrantGuard({ permissions: deps.permissions, roles: deps.roles });
  const mandatoryMfa = new MandatoryMfa({
    store: new MandatoryMfaStore(deps.users),
    mfa: mfaStore,
    sessions: deps.sessions,
  });
  const shared = deps.sharedState;
  const lockout = new LoginLockout({
    clock,
    shared,
    name: 'login',
    maxFailures: pluginConfig.LOGIN_LOCKOUT_MAX_FAILURES,
    windowMs: pluginConfig.LOGIN_LOCKOUT_WINDOW_SECONDS * 1000,
  });
  const pending = new PendingSignIns({
    clock,
    shared,
    ttlMs: { mfa: LIMITS.mfaTokenTtlMs, enrolment: LIMITS.enrollmentTokenTtlMs },
  });

  const oidcStore = new OidcStore(db);
  const oidcClient = new OidcClient({ clock, log, production: config.production, outbound: deps.outboundFetch });
  const oidcSettings = new OidcSettingsService({
    db,
    clock,
    audit: deps.audit,
    store: oidcStore,
    roles: deps.roles,
    permissions: deps.permissions,
    secretBox: deps.secretBox,
    client: oidcClient,
    production: config.production,
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
    mailsPerEmail: new LoginLockout({ clock, shared, name: 'reset-mails', ...LIMITS.forgotPerEmail }),
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
    setupLockout: new LoginLockout({ clock, shared, name: 'setup', ...LIMITS.setupFailures }),
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
    roles: deps.roles,
    localLogin: oidcSettings,
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
    settings: {
      renameRole: async (from, to, trx) => {
        await settingsStore.renameRole(from, to, trx);
        await oidcStore.renameRole(from, to, trx);
      },
      forgetRole: async (name, trx) => {
        await settingsStore.forgetRole(name, trx);
        await oidcStore.forgetRole(name, trx);
      },
    },
    grants,
  });
  const oidcSignIn = new OidcSignInService({
    db,
    clock,
    audit: deps.audit,
    log,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    sessions: deps.sessions,
    directory: deps.users,
    users: userStore,
    roles: deps.roles,
    mandatoryMfa,
    settings: oidcSettings,
    store: oidcStore,
    client: oidcClient,
    shared,
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
    oidcSettings,
    oidcSignIn,
    addressLimits: addressLimits(pluginConfig),
  };
}

/**
 * The per-address limits of the sign-in routes (route `config.rateLimit`): every attempt with a valid
 * body counts, checked before any lookup or hashing.
 */
function addressLimits(pluginConfig: IdentityDeps['pluginConfig']) {
  const perAddress = (limit: number, windowMs: number, what: string): RouteRateLimit => ({
    key: 'address',
    limit,
    windowMs,
    hook: 'preHandler',
    message: `Too many ${what} from this address; try again later`,
  });
  return {
    login: perAddress(pluginConfig.LOGIN_RATE_LIMIT_PER_MINUTE, LIMITS.loginPerAddressWindowMs, 'sign-in attempts'),
    challenge: perAddress(
      pluginConfig.MFA_CHALLENGE_RATE_LIMIT_PER_MINUTE,
      LIMITS.challengePerAddressWindowMs,
      'second-factor attempts',
    ),
    forgotPassword: perAddress(
      pluginConfig.FORGOT_PASSWORD_RATE_LIMIT_PER_WINDOW,
      LIMITS.forgotPerAddressWindowMs,
      'password reset requests',
    ),
    oidcStart: perAddress(
      pluginConfig.OIDC_START_RATE_LIMIT_PER_MINUTE,
      LIMITS.oidcStartPerAddressWindowMs,
      'single sign-on starts',
    ),
  };
}

export type IdentityServices = ReturnType<typeof createIdentityServices>;
