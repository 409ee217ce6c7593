import type { Clock } from '../../../kernel/index.ts';

// Counters are in memory, per process: the spec's deployment model runs one core-api replica and
// names the login throttle as per-process state. Limits per client address are route declarations
// (`config.rateLimit`, enforced by the kernel); what is keyed on an account stays here. Maps are swept when they grow so that a flood of
// distinct keys (made-up e-mails) cannot grow them without bound.
const SWEEP_AT = 10_000;

/**
 * Login lockout keyed on the lower-cased e-mail. `maxFailures` failures within `windowMs` lock the
 * key for `windowMs` from the last of them; attempts while locked are refused without checking the
 * password and do not extend the lock. A success clears the key. The same rule, with its own numbers,
 * counts wrong enrolment codes per user and reset e-mails per address (`LIMITS`).
 */
export class LoginLockout {
  private readonly failures = new Map<string, number[]>();
  private readonly lockedUntil = new Map<string, number>();

  constructor(private readonly opts: { clock: Clock; maxFailures: number; windowMs: number }) {}

  static key(email: string): string {
    return email.trim().toLowerCase();
  }

  /** Seconds until the key may try again; 0 when it is not locked. */
  retryAfter(key: string): number {
    const until = this.lockedUntil.get(key);
    if (until === undefined) return 0;
    const left = until - this.now();
    if (left > 0) return Math.ceil(left / 1000);
    this.lockedUntil.delete(key);
    return 0;
  }

  fail(key: string): void {
    const now = this.now();
    const recent = (this.failures.get(key) ?? []).filter((t) => t > now - this.opts.windowMs);
    recent.push(now);
    if (recent.length >= this.opts.maxFailures) {
      this.failures.delete(key);
      this.lockedUntil.set(key, now + this.opts.windowMs);
    } else {
      this.failures.set(key, recent);
    }
    if (this.failures.size + this.lockedUntil.size > SWEEP_AT) this.sweep(now);
  }

  succeed(key: string): void {
    this.failures.delete(key);
    this.lockedUntil.delete(key);
  }

  private sweep(now: number): void {
    for (const [key, times] of this.failures)
      if (times[times.length - 1] <= now - this.opts.windowMs) this.failures.delete(key);
    for (const [key, until] of this.lockedUntil) if (until <= now) this.lockedUntil.delete(key);
  }

  private now(): number {
    return this.opts.clock.now().getTime();
  }
}
