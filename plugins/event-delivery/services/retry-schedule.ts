/** Waits after the 1st..5th failed try (spec "Limits": 6 tries, then dead): the queue's `retryWaitsMs`. */
export const RETRY_WAITS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 12 * 3600_000] as const;
export const MAX_TRIES = RETRY_WAITS_MS.length + 1;

/**
 * A receiver's Retry-After (429/503) as the job engine takes it: the next try waits at least this long
 * (never sooner than the scheduled wait), and never later than the schedule's last wait (12 h).
 */
export function retryAfterWithinBounds(retryAfterMs: number | undefined): number | undefined {
  if (retryAfterMs === undefined) return undefined;
  return Math.min(Math.max(0, retryAfterMs), RETRY_WAITS_MS[RETRY_WAITS_MS.length - 1]);
}
