import type { Registry } from 'prom-client';

interface Series {
  labels: { route: string; method: string };
  byStatus: Map<number, number>;
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  buckets: number[];
  sum: number;
  count: number;
}

type Value = { labels: Record<string, string | number>; value: number; metricName?: string };

/**
 * `http_requests_total` (route, method, status) and `http_request_duration_seconds` (route, method),
 * recorded without allocating: prom-client hashes a label object on every increment and observation,
 * about 6 µs of every request (bench:docs). Series are kept per route and method and read by the
 * registry at each scrape, in prom-client's own format (the same text and JSON as its Counter and
 * Histogram gave).
 */
export class RouteMetrics {
  private readonly series = new Map<string, Map<string, Series>>();

  constructor(
    registry: Registry,
    private readonly bounds: readonly number[],
  ) {
    const all = () => [...this.series.values()].flatMap((m) => [...m.values()]);
    const reset = () => this.series.clear();
    registry.registerMetric({
      name: 'http_requests_total',
      help: 'Requests by matched route, method and status',
      type: 'counter',
      aggregator: 'sum',
      reset,
      get: async () => ({
        name: 'http_requests_total',
        help: 'Requests by matched route, method and status',
        type: 'counter',
        aggregator: 'sum',
        values: all().flatMap((s) =>
          [...s.byStatus].map(([status, value]) => ({ labels: { ...s.labels, status }, value })),
        ),
      }),
    } as never);
    registry.registerMetric({
      name: 'http_request_duration_seconds',
      help: 'Time from request to response by matched route and method',
      type: 'histogram',
      aggregator: 'sum',
      reset,
      get: async () => ({
        name: 'http_request_duration_seconds',
        help: 'Time from request to response by matched route and method',
        type: 'histogram',
        aggregator: 'sum',
        values: all().flatMap((s) => this.histogramValues(s)),
      }),
    } as never);
  }

  /** One answered request: its route pattern (or `unmatched`), method, status and duration. */
  record(route: string, method: string, status: number, seconds: number): void {
    let methods = this.series.get(route);
    if (methods === undefined) {
      methods = new Map();
      this.series.set(route, methods);
    }
    let s = methods.get(method);
    if (s === undefined) {
      s = {
        labels: { route, method },
        byStatus: new Map(),
        buckets: new Array(this.bounds.length + 1).fill(0),
        sum: 0,
        count: 0,
      };
      methods.set(method, s);
    }
    s.byStatus.set(status, (s.byStatus.get(status) ?? 0) + 1);
    let i = 0;
    while (i < this.bounds.length && seconds > this.bounds[i]) i++;
    s.buckets[i]++;
    s.sum += seconds;
    s.count++;
  }

  private histogramValues(s: Series): Value[] {
    const name = 'http_request_duration_seconds';
    let acc = 0;
    const values: Value[] = this.bounds.map((le, i) => {
      acc += s.buckets[i];
      return { labels: { le, ...s.labels }, value: acc, metricName: `${name}_bucket` };
    });
    values.push(
      { labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${name}_bucket` },
      { labels: { ...s.labels }, value: s.sum, metricName: `${name}_sum` },
      { labels: { ...s.labels }, value: s.count, metricName: `${name}_count` },
    );
    return values;
  }
}
