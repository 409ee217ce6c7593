import { type Clock, hashToken, newToken, type SharedState } from '../../../kernel/index.ts';

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

type Stored = Omit<PendingSignIn, 'failures'>;

/**
 * Pending sign-ins in the kernel's shared state, so the second step may reach another core-api
 * replica than the password did. Tokens are random 256-bit strings handed to the browser once; the
 * store keys them by their hash, so whoever reads it cannot finish a sign-in.
 */
export class PendingSignIns {
  constructor(
    private readonly opts: { clock: Clock; shared: SharedState; ttlMs: Record<PendingSignIn['kind'], number> },
  ) {}

  async issue(kind: PendingSignIn['kind'], userId: string, email: string): Promise<string> {
    const token = newToken(32);
    const ttlMs = this.opts.ttlMs[kind];
    const entry: Stored = { kind, userId, email, expiresAt: this.now() + ttlMs };
    await this.opts.shared.put(entryKey(token), entry, ttlMs);
    return token;
  }

  /** The live entry of that kind, or null (unknown, expired, or of the other kind). */
  async get(kind: PendingSignIn['kind'], token: string | undefined): Promise<PendingSignIn | null> {
    if (!token) return null;
    const entry = await this.opts.shared.get<Stored>(entryKey(token));
    if (!entry || entry.kind !== kind || entry.expiresAt <= this.now()) return null;
    const failures = (await this.opts.shared.get<number>(failuresKey(token))) ?? 0;
    return { ...entry, failures };
  }

  /** Counts a failed code against the token and returns how many it has had. */
  async fail(token: string, entry: PendingSignIn): Promise<number> {
    const failures = entry.failures + 1;
    await this.opts.shared.put(failuresKey(token), failures, Math.max(1, entry.expiresAt - this.now()));
    return failures;
  }

  /** Uses the token up; false when another request (on any replica) used it first. */
  async consume(token: string): Promise<boolean> {
    const taken = await this.opts.shared.take<Stored>(entryKey(token));
    await this.opts.shared.delete(failuresKey(token));
    return taken !== null;
  }

  /** Seconds the token still lives. */
  secondsLeft(entry: PendingSignIn): number {
    return Math.max(1, Math.ceil((entry.expiresAt - this.now()) / 1000));
  }

  private now(): number {
    return this.opts.clock.now().getTime();
  }
}

const entryKey = (token: string) => `identity:pending-sign-in:${hashToken(token)}`;
const failuresKey = (token: string) => `identity:pending-sign-in-failures:${hashToken(token)}`;
