import { type Clock, newToken } from '../../../kernel/index.ts';

/**
 * A sign-in whose password was right but which still needs a second step: a TOTP/recovery code
 * (`mfa`) or enrolment in 2FA because a role requires it (`enrolment`).
 */
export interface PendingSignIn {
  kind: 'mfa' | 'enrolment';
  userId: string;
  email: string;
  expiresAt: number;
  failures: number;
}

const MAX_PENDING = 10_000;

/**
 * Pending sign-ins, in memory per process (the spec's deployment model, point 5): a restart simply
 * asks the user to sign in again. Tokens are random 256-bit strings handed to the browser once.
 */
export class PendingSignIns {
  private readonly entries = new Map<string, PendingSignIn>();

  constructor(private readonly opts: { clock: Clock; ttlMs: Record<PendingSignIn['kind'], number> }) {}

  issue(kind: PendingSignIn['kind'], userId: string, email: string): string {
    const now = this.now();
    if (this.entries.size >= MAX_PENDING) this.sweep(now);
    const token = newToken(32);
    this.entries.set(token, { kind, userId, email, expiresAt: now + this.opts.ttlMs[kind], failures: 0 });
    return token;
  }

  /** The live entry of that kind, or null (unknown, expired, or of the other kind). */
  get(kind: PendingSignIn['kind'], token: string | undefined): PendingSignIn | null {
    if (!token) return null;
    const entry = this.entries.get(token);
    if (!entry || entry.kind !== kind) return null;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(token);
      return null;
    }
    return entry;
  }

  /** Counts a failed code against the token and returns how many it has had. */
  fail(token: string): number {
    const entry = this.entries.get(token);
    if (!entry) return 0;
    entry.failures += 1;
    return entry.failures;
  }

  consume(token: string): void {
    this.entries.delete(token);
  }

  /** Seconds the token still lives. */
  secondsLeft(entry: PendingSignIn): number {
    return Math.max(1, Math.ceil((entry.expiresAt - this.now()) / 1000));
  }

  private sweep(now: number): void {
    for (const [token, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(token);
    // Still full of live entries: drop the oldest rather than grow without bound.
    for (const token of this.entries.keys()) {
      if (this.entries.size < MAX_PENDING) break;
      this.entries.delete(token);
    }
  }

  private now(): number {
    return this.opts.clock.now().getTime();
  }
}
