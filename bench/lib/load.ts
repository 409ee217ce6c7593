import autocannon from 'autocannon';
import { runWrk, wrkAvailable } from './wrk.ts';

/** One measured scenario: requests per second and latency percentiles in milliseconds. */
export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** Answers that are neither 2xx nor 3xx (wrk's count), and socket errors and timeouts. */
  non2xx: number;
  errors: number;
  tool: 'wrk' | 'autocannon';
}

export interface LoadRequest {
  method: 'GET' | 'POST';
  /** Called per request with a running counter, so every connection walks the same sequence of inputs. */
  build(n: number): { path: string; body?: unknown };
}

/** A request written out in full; a load replays a list of them in order, round and round. */
export interface PreparedRequest {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  /** JSON text (sent with `content-type: application/json`). */
  body?: string;
  headers?: Record<string, string>;
}

export interface LoadOptions {
  connections: number;
  seconds: number;
  /** Ends the load early when it settles (wrk is interrupted and still reports what it measured). */
  until?: Promise<unknown>;
  /** An answer not complete after this long counts as a timeout and its connection is closed (default 10). */
  timeoutSeconds?: number;
}

/**
 * Replays `requests` against `baseUrl`: with wrk (one thread, `--latency`, a Lua request list) when it
 * is installed, otherwise with autocannon in this process.
 */
export function runLoad(baseUrl: string, requests: readonly PreparedRequest[], opts: LoadOptions): Promise<LoadResult> {
  return wrkAvailable() ? runWrk(baseUrl, requests, opts) : runAutocannon(baseUrl, requests, opts);
}

export const loadToolName = (): string =>
  wrkAvailable() ? 'wrk (1 thread)' : 'autocannon (wrk not installed, or BENCH_LOAD_TOOL=autocannon)';

async function runAutocannon(
  baseUrl: string,
  requests: readonly PreparedRequest[],
  opts: LoadOptions,
): Promise<LoadResult> {
  let n = 0;
  const instance = autocannon({
    url: baseUrl,
    connections: opts.connections,
    duration: opts.seconds,
    timeout: opts.timeoutSeconds ?? 10,
    requests: [
      {
        setupRequest: (req) => {
          const next = requests[n++ % requests.length];
          const headers = {
            ...next.headers,
            ...(next.body !== undefined ? { 'content-type': 'application/json' } : {}),
          };
          return {
            ...req,
            method: next.method,
            path: next.path,
            headers,
            ...(next.body !== undefined ? { body: next.body } : {}),
          };
        },
      },
    ],
  });
  void opts.until?.then(() => instance.stop());
  const result = await instance;
  const failed = Object.entries(result.statusCodeStats).reduce(
    (sum, [code, s]) => sum + (Number(code) >= 400 ? s.count : 0),
    0,
  );
  return {
    rps: result.requests.total / Math.max(result.duration, 0.001),
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: failed,
    errors: result.errors + result.timeouts,
    tool: 'autocannon',
  };
}

/**
 * Runs autocannon against `baseUrl` with `connections` for `seconds`. Every request is produced by
 * `build`, so product and baseline see the same inputs in the same order.
 */
export async function measure(
  baseUrl: string,
  request: LoadRequest,
  opts: { connections: number; seconds: number },
): Promise<LoadResult> {
  let n = 0;
  const result = await autocannon({
    url: baseUrl,
    connections: opts.connections,
    duration: opts.seconds,
    headers: { 'content-type': 'application/json' },
    requests: [
      {
        method: request.method,
        setupRequest: (req) => {
          const next = request.build(n++);
          return { ...req, path: next.path, ...(next.body !== undefined ? { body: JSON.stringify(next.body) } : {}) };
        },
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    tool: 'autocannon',
  };
}

/** Percentile of a list of numbers (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}
