import { Type } from '@sinclair/typebox';

const PerAddress = (defaultValue: number, description: string) =>
  Type.Integer({ minimum: 1, maximum: 1_000_000, default: defaultValue, description });

/**
 * The environment variables this plugin reads (its `pluginConfig`, typed and defaulted by the kernel).
 * Per-address limits sit beside the per-e-mail lockout (kernel `LOGIN_LOCKOUT_*`): the lockout stops
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
});
