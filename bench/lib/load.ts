import autocannon from 'autocannon';

/** One measured scenario: requests per second and latency percentiles in milliseconds. */
export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

export interface LoadRequest {
  method: 'GET' | 'POST';
  /** Called per request with a running counter, so every connection walks the same sequence of inputs. */
  build(n: number): { path: string; body?: unknown };
}

/**
 * Runs autocannon against `baseUrl` with `connections` for `seconds`. Every request is produced by
 * `build`, so product and baseline see the same inputs in the same order.
 */
export async function measure(baseUrl: string, request: LoadRequest, opts: { connections: number; seconds: number }): Promise<LoadResult> {
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
  };
}

/** Percentile of a list of numbers (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}
