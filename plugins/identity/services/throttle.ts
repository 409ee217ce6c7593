import type { Clock, SharedState } from '../../../kernel/index.ts';

// Counts and locks live in the kernel's shared state (PostgreSQL, or Redis with REDIS_URL), so every
// core-api replica sees the same failures: five wrong passwords are five wherever they arrive. Limits
// per client address are route declarations (`config.rateLimit`, enforced by the kernel); what is
// keyed on an account stays here. Expired keys are purged by the kernel's schedule.

/**
 * Login lockout keyed on the lower-cased e-mail. `maxFailures` failures within a window of
 * `windowMs` (from the first of them) lock the key for `windowMs`; attempts while locked are refused
 * without checking the password and do not extend the lock. A success clears the key. The same rule,
 * with its own numbers and `name`, counts wrong enrolment codes per user and reset e-mails per
 * address (`LIMITS`).
 */
export class LoginLockout {
  constructor(
    private readonly opts: { clock: Clock; shared: SharedState; name: string; maxFailures: number; windowMs: number },
  ) {}

  static key(email: string): string {
    return email.trim().toLowerCase();
  }

  private failuresKey(key: string): string {
    return `identity:${this.opts.name}-failures:${key}`;
  }

  private lockKey(key: string): string {
    return `identity:${this.opts.name}-locked:${key}`;
  }

  /** Seconds until the key may try again; 0 when it is not locked. */
  async retryAfter(key: string): Promise<number> {
    const until = await this.opts.shared.get<number>(this.lockKey(key));
    if (until === null) return 0;
    const left = until - this.opts.clock.now().getTime();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  async fail(key: string): Promise<void> {
    const { count } = await this.opts.shared.hit(this.failuresKey(key), this.opts.windowMs);
    if (count < this.opts.maxFailures) return;
    const until = this.opts.clock.now().getTime() + this.opts.windowMs;
    await this.opts.shared.put(this.lockKey(key), until, this.opts.windowMs);
    await this.opts.shared.delete(this.failuresKey(key));
  }

  /**
   * Counts one more attempt and says whether it is within `maxFailures` in the window (from the first
   * attempt), in one atomic step: concurrent attempts (reset mails sent in the background) each get
   * their own count, so a fourth never slips in between a check and its count.
   */
  async admit(key: string): Promise<boolean> {
    const { count } = await this.opts.shared.hit(this.failuresKey(key), this.opts.windowMs);
    return count <= this.opts.maxFailures;
  }

  async succeed(key: string): Promise<void> {
    await this.opts.shared.delete(this.failuresKey(key));
    await this.opts.shared.delete(this.lockKey(key));
  }
}
