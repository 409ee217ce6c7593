import { randomInt } from 'node:crypto';
import { authenticator } from 'otplib';
import {
  type Clock,
  type Config,
  type Db,
  badRequest,
  conflict,
  forbidden,
  tooManyRequests,
  unauthorized,
  type Logger,
  hashToken,
  verifyPassword,
  type SecretBox,
} from '../../../kernel/index.ts';
import type { MfaStore } from '../store/mfa.ts';
import type { UserStore } from '../store/users.ts';
import type { MandatoryMfa } from './mandatory-mfa.ts';
import type { SecuritySettingsService } from './security-settings.ts';
import { LoginLockout } from './throttle.ts';

const KEY_NAME = 'TOTP_ENCRYPTION_KEY';
const STEP_SECONDS = 30;
const RECOVERY_CODE_COUNT = 10;
// 32 symbols without look-alikes (no l, o, 0, 1): 10 of them carry 50 bits, ample with throttled attempts.
const RECOVERY_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

export interface MfaSetup {
  secret: string;
  otpauthUrl: string;
  qrCodeDataUrl: string;
}

export interface MfaStatus {
  enabled: boolean;
  required: boolean;
  recoveryCodesRemaining: number;
}

const mfaRequired = () =>
  forbidden('Your role requires two-factor authentication; it cannot be disabled', 'MFA_REQUIRED');

/** Recovery codes are compared case-, space- and dash-insensitively. */
const normaliseRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, '');

function newRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < 10; i++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/**
 * TOTP second factor (RFC 6238, 30 s steps, one step of tolerance either way) with single-use
 * recovery codes. Secrets are sealed with TOTP_ENCRYPTION_KEY and never leave this service after
 * setup; a code, once accepted at sign-in, cannot be accepted again (the used step is recorded).
 */
export class MfaService {
  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      config: Config;
      secretBox: SecretBox;
      log: Logger;
      store: MfaStore;
      users: UserStore;
      settings: SecuritySettingsService;
      mandatoryMfa: MandatoryMfa;
      lockout: LoginLockout;
      /** Wrong enrolment codes per user id. */
      setupLockout: LoginLockout;
    },
  ) {}

  isEnabled(userId: string): Promise<boolean> {
    return this.deps.store.isEnabled(userId);
  }

  async status(userId: string, roles: string[]): Promise<MfaStatus> {
    const enabled = await this.deps.store.isEnabled(userId);
    return {
      enabled,
      required: await this.deps.settings.mfaRequiredFor(roles),
      recoveryCodesRemaining: enabled ? await this.deps.store.unusedRecoveryCodes(userId) : 0,
    };
  }

  /**
   * Starts (or restarts) enrolment with a fresh secret, kept as pending until a code proves the
   * authenticator has it. Refused while 2FA is on, unless the stored secret can no longer be
   * decrypted (TOTP_ENCRYPTION_KEY lost): then re-enrolment is the way back.
   */
  async setup(user: { id: string; email: string }): Promise<MfaSetup> {
    const row = await this.deps.store.get(user.id);
    if (row?.enabled && this.open(row.secretSealed) !== null) {
      throw conflict('Two-factor authentication is already enabled; disable it first', 'MFA_ALREADY_ENABLED');
    }
    const secret = authenticator.generateSecret(20);
    await this.deps.store.savePending(user.id, this.deps.secretBox.encrypt(KEY_NAME, secret), this.deps.clock.now());
    const otpauthUrl = authenticator.keyuri(user.email, this.issuer(), secret);
    // qrcode is imported by the first enrolment, not at every start.
    const { default: QRCode } = await import('qrcode');
    return { secret, otpauthUrl, qrCodeDataUrl: await QRCode.toDataURL(otpauthUrl) };
  }

  /** Confirms enrolment with a code from the authenticator; returns the recovery codes, shown once. */
  async verifySetup(userId: string, code: string): Promise<string[]> {
    const wait = await this.deps.setupLockout.retryAfter(userId);
    if (wait) throw tooManyRequests('Too many wrong codes; wait, then try again', wait, 'MFA_LOCKED');
    const row = await this.deps.store.get(userId);
    const secret = row?.pendingSecretSealed ? this.open(row.pendingSecretSealed) : null;
    if (!secret) throw conflict('No enrolment in progress: call POST /auth/mfa/setup first', 'MFA_SETUP_NOT_STARTED');
    if (this.matchStep(secret, code) === null) {
      await this.deps.setupLockout.fail(userId);
      throw badRequest('code does not match the authenticator', 'code', 'MFA_CODE_INVALID');
    }
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    await this.deps.db.transaction(async (trx) => {
      const now = this.deps.clock.now();
      await this.deps.store.enable(userId, now, trx);
      await this.deps.store.replaceRecoveryCodes(
        userId,
        codes.map((c) => hashToken(normaliseRecoveryCode(c))),
        now,
        trx,
      );
    });
    await this.deps.setupLockout.succeed(userId);
    return codes;
  }

  /**
   * Turns 2FA off after the password is entered again. Refused (403) while one of the user's roles
   * requires 2FA. Wrong passwords count towards the login lockout of the account's e-mail.
   */
  async disable(user: { id: string; email: string; roles: string[] }, password: string): Promise<void> {
    if (await this.deps.settings.mfaRequiredFor(user.roles)) throw mfaRequired();
    const key = LoginLockout.key(user.email);
    const wait = await this.deps.lockout.retryAfter(key);
    if (wait) throw tooManyRequests('Too many failed attempts; try again later', wait, 'LOGIN_LOCKED');
    const credentials = await this.deps.users.credentials(user.id);
    if (!(await verifyPassword(password, credentials?.passwordHash))) {
      await this.deps.lockout.fail(key);
      this.deps.log.warn({ userId: user.id }, 'password re-entry for disabling 2FA failed');
      throw unauthorized('The password is not correct', 'INVALID_PASSWORD');
    }
    if (!(await this.deps.store.isEnabled(user.id)))
      throw conflict('Two-factor authentication is not enabled', 'MFA_NOT_ENABLED');
    await this.deps.db.transaction(async (trx) => {
      // Again, locked: a role or settings change that made 2FA mandatory meanwhile is waited for.
      if (await this.deps.mandatoryMfa.required(user.id, trx)) throw mfaRequired();
      await this.deps.store.disable(user.id, trx);
    });
  }

  /** A six-digit TOTP code or an unused recovery code of this user; either is used up by success. */
  async verifySecondFactor(userId: string, code: string): Promise<boolean> {
    const compact = code.replace(/\s/g, '');
    if (/^\d{6}$/.test(compact)) {
      const row = await this.deps.store.get(userId);
      if (!row?.enabled || !row.secretSealed) return false;
      const secret = this.open(row.secretSealed);
      if (secret === null) {
        this.deps.log.error(
          { userId },
          'stored TOTP secret cannot be decrypted (TOTP_ENCRYPTION_KEY changed?): use a recovery code and enrol again',
        );
        return false;
      }
      const step = this.matchStep(secret, compact);
      return step !== null && (await this.deps.store.claimStep(userId, step));
    }
    return this.deps.store.useRecoveryCode(userId, hashToken(normaliseRecoveryCode(code)), this.deps.clock.now());
  }

  /** The TOTP step a code belongs to (current one ± 1), or null. */
  private matchStep(secret: string, code: string): number | null {
    const epoch = this.deps.clock.now().getTime();
    const delta = authenticator.clone({ window: 1, epoch }).checkDelta(code.replace(/\s/g, ''), secret);
    return delta === null ? null : Math.floor(epoch / 1000 / STEP_SECONDS) + delta;
  }

  private open(sealed: string | null): string | null {
    if (!sealed) return null;
    try {
      return this.deps.secretBox.decrypt(sealed);
    } catch {
      return null;
    }
  }

  private issuer(): string {
    return `CMS ${new URL(this.deps.config.PUBLIC_BASE_URL).hostname}`;
  }
}
