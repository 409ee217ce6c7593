import { Type } from '@sinclair/typebox';

const PerAddress = (defaultValue: number, description: string) =>
  Type.Integer({ minimum: 1, maximum: 1_000_000, default: defaultValue, description });

/**
 * The environment variables this plugin reads (its `pluginConfig`, typed and defaulted by the kernel).
 * Per-address limits sit beside the per-e-mail lockout (`LOGIN_LOCKOUT_*`): the lockout stops
 * guessing one account's password, these stop one address from trying many accounts.
 */
export const IdentityConfig = Type.Object({
  LOGIN_RATE_LIMIT_PER_MINUTE: PerAddress(
    30,
    'POST /auth/login attempts per client address and minute, failed or not (429 with Retry-After beyond)',
  ),
  MFA_CHALLENGE_RATE_LIMIT_PER_MINUTE: PerAddress(
    30,
    'POST /auth/mfa/challenge attempts per client address and minute (429 with Retry-After beyond)',
  ),
  FORGOT_PASSWORD_RATE_LIMIT_PER_WINDOW: PerAddress(
    10,
    'POST /auth/forgot-password requests per client address per 15 minutes (429 with Retry-After beyond)',
  ),
  OIDC_START_RATE_LIMIT_PER_MINUTE: PerAddress(
    30,
    'GET /auth/oidc/start (single sign-on) per client address and minute (429 with Retry-After beyond)',
  ),
  LOGIN_LOCKOUT_MAX_FAILURES: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 5,
    description: 'failed logins per e-mail within the window before 429',
  }),
  LOGIN_LOCKOUT_WINDOW_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86400,
    default: 900,
    description: 'login lockout window in seconds',
  }),
  // Read by the kernel's secret box under this name when it seals a second factor (services/mfa.ts);
  // declared here, with the plugin that uses it, so start-up checks it and the config table lists it.
  TOTP_ENCRYPTION_KEY: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'key sealing second-factor secrets (64 hex chars or a passphrase); unset outside production: generated in CMS_DATA_DIR/keys',
    }),
  ),
  // Read by the kernel's secret box when the single-sign-on client secret is sealed (services/oidc-settings.ts).
  OIDC_SETTINGS_ENCRYPTION_KEY: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'key sealing the single-sign-on client secret (64 hex chars or a passphrase); unset outside production: generated in CMS_DATA_DIR/keys',
    }),
  ),
});
