/** Waits after the 1st..5th failed try (spec "Limits": 6 tries, then dead). */
export const RETRY_WAITS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 12 * 3600_000] as const;
export const MAX_TRIES = RETRY_WAITS_MS.length + 1;

/**
 * When to try again after failed try number `attempt` (1-based), or null when it was the last.
 * A receiver's Retry-After (429/503) replaces the scheduled wait but stays within the schedule's
 * bounds: never sooner than the first wait (1 min), never later than the last (12 h).
 */
export function nextTryAfterMs(attempt: number, retryAfterMs?: number): number | null {
  if (attempt >= MAX_TRIES) return null;
  const scheduled = RETRY_WAITS_MS[Math.max(0, attempt - 1)];
  if (retryAfterMs === undefined) return scheduled;
  return Math.min(Math.max(retryAfterMs, RETRY_WAITS_MS[0]), RETRY_WAITS_MS[RETRY_WAITS_MS.length - 1]);
}
