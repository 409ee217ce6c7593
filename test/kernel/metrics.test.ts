import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { Metrics } from '../../kernel/metrics.ts';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';

const TOKEN = 'metrics-token-0123456789';

describe('GET /metrics: Prometheus text format', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ service: 'all', env: { METRICS_TOKEN: TOKEN } });
  });
  after(() => t?.close());

  async function scrape() {
    const res = await t.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).to.equal(200);
    expect(res.headers['content-type']).to.match(/^text\/plain; version=0\.0\.4/);
    const families = parsePrometheusTextFormat(res.body);
    const family = (name: string) => families.find((f) => f.name === name);
    return Object.assign(family, { text: res.body });
  }

  it('needs Authorization: Bearer <METRICS_TOKEN>: none, another scheme or a wrong token is 401', async () => {
    for (const authorization of [undefined, `Basic ${TOKEN}`, 'Bearer metrics-token-0123456780', `Bearer ${TOKEN}x`]) {
      const res = await t.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
      expect(res.statusCode, String(authorization)).to.equal(401);
    }
  });

  it('labels requests and latency by matched route, never by raw URL, and the figures move with load', async () => {
    const { cookie } = await t.admin();
    const route = { route: '/data-objects/:id', method: 'GET' };
    const requestsOf = (scraped: Awaited<ReturnType<typeof scrape>>) =>
      (scraped('http_requests_total')?.metrics ?? [])
        .filter((m) => m.labels?.route === route.route && m.labels?.method === route.method)
        .reduce((n, m) => n + Number(m.value), 0);
    // The parser folds a histogram's labelled series into one, so its per-route count is read from the text.
    const latencyCountOf = (scraped: Awaited<ReturnType<typeof scrape>>) =>
      Number(
        /^http_request_duration_seconds_count\{route="\/data-objects\/:id",method="GET"\} (\d+)$/m.exec(
          scraped.text,
        )?.[1] ?? 0,
      );
    const first = await scrape();
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of ids) await t.inject({ method: 'GET', url: `/data-objects/${id}`, headers: { cookie } });
    const second = await scrape();

    expect(second('http_request_duration_seconds')?.type).to.equal('HISTOGRAM');
    expect(second('http_requests_total')?.type).to.equal('COUNTER');
    expect(requestsOf(second) - requestsOf(first)).to.equal(3);
    expect(latencyCountOf(second) - latencyCountOf(first)).to.equal(3);
    expect(second.text).to.match(
      /^http_request_duration_seconds_bucket\{le="0\.005",route="\/data-objects\/:id",method="GET"\} \d+$/m,
    );
    // No series anywhere carries one of the raw ids.
    for (const id of ids) expect(second.text).not.to.include(id);
  });

  it('reports the database, its pool, lost audit rows and the queues of event deliveries and publish jobs', async () => {
    const family = await scrape();
    const value = (name: string, labels: Record<string, string> = {}) =>
      family(name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))?.value;
    expect(value('database_up')).to.equal('1');
    expect(value('database_pool_connections_max')).to.equal('10');
    expect(Number(value('database_pool_connections_used'))).to.be.at.least(0);
    expect(value('audit_rows_lost_total')).to.equal('0');
    expect(value('publish_jobs_queued')).to.equal('0');
    expect(value('object_event_deliveries_queued', { status: 'pending' })).to.match(/^\d+$/);
    expect(value('object_event_deliveries_queued', { status: 'retrying' })).to.match(/^\d+$/);
    expect(family('object_event_deliveries_total')?.type).to.equal('COUNTER');
  });

  it('includes the Node process metrics when the process owns its registry', async () => {
    const metrics = new Metrics({ defaultMetrics: true });
    const names = parsePrometheusTextFormat(await metrics.registry.metrics()).map((f) => f.name);
    expect(names).to.include.members([
      'process_cpu_user_seconds_total',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
    ]);
  });
});

describe('GET /metrics without METRICS_TOKEN', () => {
  it('does not exist: the router answers 404 ROUTE_NOT_FOUND', async () => {
    const t = await startTestKernel({ plugins: ['health'] });
    try {
      const res = await t.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.statusCode).to.equal(404);
      expect(res.json().code).to.equal('ROUTE_NOT_FOUND');
    } finally {
      await t.close();
    }
  });
});
