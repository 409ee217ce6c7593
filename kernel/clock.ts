/** Time source, injectable so tests can move time (session expiry, lockout windows, retention). */
export interface Clock {
  now(): Date;
  /** The same instant as `now()` in milliseconds, without a Date (hot paths: every request reads it). */
  nowMs?(): number;
}

/** Milliseconds of `clock`'s now: `nowMs()` where the clock has it, else `now().getTime()`. */
export const nowMsOf = (clock: Clock): number => (clock.nowMs ? clock.nowMs() : clock.now().getTime());

export class SystemClock implements Clock {
  now(): Date {
    return new Date();
  }
  nowMs(): number {
    return Date.now();
  }
}

/** A clock tests can set and advance. */
export class ManualClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  nowMs(): number {
    return Date.now() + this.offsetMs;
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
