import v8 from 'node:v8';

/**
 * Sets how far V8 lets the old generation grow before its next full collection.
 *
 * Why: a server process holds 30-40 MB of long-lived library code and state. V8's own growing factor
 * for such a heap left about 9 MB of room, less than its young generation (up to 16 MB per
 * semi-space), and V8 starts marking whenever a young collection could overrun the limit. Under
 * steady traffic that was a full collection every few requests: with image bodies of 4 MB,
 * `npm run bench:assets` showed one every 7 requests and 10 ms of collector work per request. Room of
 * 100 % (the default) stopped it; the cost is at most a second old generation's worth of memory.
 * The flag is read at every limit computation, so setting it at start is enough; 0 restores V8's own
 * choice. A `--heap-growing-percent` given to node itself is left alone.
 */
export function applyHeapGrowingPercent(
  percent: number,
  execArgv: readonly string[] = process.execArgv,
  setFlags: (flags: string) => void = v8.setFlagsFromString,
): boolean {
  if (
    execArgv.some((arg) => /^--heap[-_]growing[-_]percent(=|$)/.test(arg)) ||
    /--heap[-_]growing[-_]percent/.test(process.env.NODE_OPTIONS ?? '')
  )
    return false;
  setFlags(`--heap-growing-percent=${Math.trunc(percent)}`);
  return true;
}
