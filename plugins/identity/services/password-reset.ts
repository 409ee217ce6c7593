import {
  type Clock,
  type Config,
  type Db,
  type Tx,
  badRequest,
  type Logger,
  type MailPort,
  assertPasswordAllowed,
  hashPassword,
  hashToken,
  newToken,
  type SessionService,
  type UserDirectory,
} from '../../../kernel/index.ts';
import type { ResetTokenStore } from '../store/reset-tokens.ts';
import type { UserStore } from '../store/users.ts';
import type { SecuritySettingsService } from './security-settings.ts';
import { LoginLockout } from './throttle.ts';

/** A link the user asked for is short-lived; one an administrator forced lives a day (the old password is gone). */
export const REQUESTED_TTL_MS = 3600_000;
export const FORCED_TTL_MS = 24 * 3600_000;

const invalidToken = () => badRequest('token is invalid, used or expired', 'token', 'RESET_TOKEN_INVALID');

/**
 * Self-service password reset by e-mail: the token is stored hashed, usable once, and expires; using
 * it applies the password policy, voids the user's other links and revokes every session.
 */
export class PasswordResetService {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      config: Config;
      mail: MailPort;
      log: Logger;
      sessions: SessionService;
      store: ResetTokenStore;
      users: UserStore;
      directory: UserDirectory;
      settings: SecuritySettingsService;
      lockout: LoginLockout;
      /** Reset e-mails sent per address (its own numbers, see `LIMITS`). */
      mailsPerEmail: LoginLockout;
    },
  ) {}

  /**
   * Answers the same whether or not the address has an account. Too many requests from one client
   * address answer 429 (the route's limit); too many for one e-mail are dropped silently (protects the mailbox without
   * telling anything about the account). The lookup and the mail run after the answer so that
   * response time does not reveal whether the account exists either.
   */
  request(email: string, ip: string): void {
    const work = this.throttledMail(LoginLockout.key(email), ip).catch((err) =>
      this.deps.log.error({ err }, 'password reset e-mail failed'),
    );
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  /** At most `LIMITS.forgotPerEmail` mails per address and window, counted across replicas. */
  private async throttledMail(key: string, ip: string): Promise<void> {
    if (!(await this.deps.mailsPerEmail.admit(key))) {
      this.deps.log.warn({ ip }, 'password reset requests for one e-mail over the limit: not sending');
      return;
    }
    await this.mailIfAccountExists(key);
  }

  /** Resolves when every queued reset e-mail has been handled (shutdown, tests). */
  /** Drops tokens that expired before `olderThan` (daily job). */
  purgeExpired(olderThan: Date): Promise<number> {
    return this.deps.store.purge(olderThan);
  }

  async settled(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  async reset(token: string, password: string): Promise<void> {
    const hash = hashToken(token);
    const now = this.deps.clock.now();
    const userId = await this.deps.store.peek(hash, now);
    const user = userId ? await this.deps.users.credentials(userId) : null;
    // Inactive accounts cannot sign in anyway; their links are treated as void.
    if (!user?.active) throw invalidToken();
    // Checked before the token is used, so a refused password does not burn the link.
    assertPasswordAllowed(password, user.email, await this.deps.settings.passwordPolicy());
    const passwordHash = await hashPassword(password);
    await this.deps.db.transaction(async (trx) => {
      if ((await this.deps.store.consume(hash, this.deps.clock.now(), trx)) !== user.id) throw invalidToken();
      await this.deps.directory.update(user.id, { passwordHash }, this.deps.clock.now(), trx);
      await this.deps.sessions.revokeAllForUser(user.id, trx);
    });
    // Proving access to the mailbox lifts a login lockout on that address.
    await this.deps.lockout.succeed(LoginLockout.key(user.email));
  }

  /** Creates a link token for a user (inside the caller's transaction when given). */
  async issueToken(userId: string, ttlMs: number, trx?: Tx): Promise<string> {
    const token = newToken(32);
    const now = this.deps.clock.now();
    await this.deps.store.insert(userId, hashToken(token), now, new Date(now.getTime() + ttlMs), trx);
    return token;
  }

  async voidTokens(userId: string, trx: Tx): Promise<void> {
    await this.deps.store.voidForUser(userId, this.deps.clock.now(), trx);
  }

  async sendLink(email: string, token: string, reason: 'requested' | 'forced'): Promise<void> {
    const base = this.deps.config.PUBLIC_BASE_URL.replace(/\/+$/, '');
    const link = `${base}/reset-password?token=${encodeURIComponent(token)}`;
    const text =
      reason === 'requested'
        ? `Someone asked to reset the password of your account at ${base}.\n\n` +
          `Open this link within ${REQUESTED_TTL_MS / 60_000} minutes to choose a new password:\n${link}\n\n` +
          'If that was not you, ignore this message: your password stays as it is.\n'
        : `An administrator reset the password of your account at ${base}; the old password no longer works.\n\n` +
          `Open this link within ${FORCED_TTL_MS / 3600_000} hours to choose a new password:\n${link}\n`;
    // The mail plugin, when loaded, renders its editable template instead (this text is the fallback);
    // the link is a one-time secret that no mail log keeps.
    const validFor =
      reason === 'requested' ? `${REQUESTED_TTL_MS / 60_000} minutes` : `${FORCED_TTL_MS / 3600_000} hours`;
    await this.deps.mail.send({
      to: email,
      subject: 'Reset your password',
      text,
      kind: 'password-reset',
      template: {
        key: reason === 'requested' ? 'password-reset' : 'password-reset-forced',
        variables: { link, siteUrl: base, validFor, email },
      },
      secrets: [link, token],
    });
  }

  private async mailIfAccountExists(key: string): Promise<void> {
    const user = await this.deps.users.credentialsByEmail(key);
    if (!user?.active) return;
    const token = await this.issueToken(user.id, REQUESTED_TTL_MS);
    await this.sendLink(user.email, token, 'requested');
  }
}
