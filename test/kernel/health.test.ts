import { expect } from 'chai';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';

describe('health and metrics', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ plugins: ['health'], env: { METRICS_TOKEN: 'a-metrics-token-of-length' } });
  });
  after(() => t.close());

  it('GET /health answers ok with uptime', async () => {
    const res = await t.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.include({ status: 'ok' });
    expect(res.json().uptimeSeconds).to.be.a('number');
  });

  it('GET /health/live answers without touching the database', async () => {
    const queries: string[] = [];
    const count = (query: { sql: string }) => void queries.push(query.sql);
    t.db.on('query', count);
    try {
      const live = await t.inject({ method: 'GET', url: '/health/live' });
      expect(live.statusCode).to.equal(200);
      expect(live.json()).to.deep.equal({ status: 'ok' });
      expect(queries).to.deep.equal([]);
      // The counter does see the readiness check's query.
      expect((await t.inject({ method: 'GET', url: '/health' })).statusCode).to.equal(200);
      expect(queries).to.have.length.greaterThan(0);
    } finally {
      t.db.removeListener('query', count);
    }
  });

  it('GET /health/live still answers 200 once the database is unreachable, while GET /health answers 503', async () => {
    const own = await startTestKernel({ plugins: ['health'] });
    try {
      await own.db.destroy(); // the pool is gone: any query now fails at once
      const live = await own.inject({ method: 'GET', url: '/health/live' });
      expect(live.statusCode).to.equal(200);
      expect(live.json()).to.deep.equal({ status: 'ok' });
      const ready = await own.inject({ method: 'GET', url: '/health' });
      expect(ready.statusCode).to.equal(503);
      expect(ready.json()).to.include({ status: 'unavailable', database: 'down' });
    } finally {
      await own.close();
    }
  });

  it('GET /metrics needs the bearer token', async () => {
    expect((await t.inject({ method: 'GET', url: '/metrics' })).statusCode).to.equal(401);
    const res = await t.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: 'Bearer a-metrics-token-of-length' },
    });
    expect(res.statusCode).to.equal(200);
    expect(res.body).to.contain('http_requests_total');
    expect(res.body).to.contain('database_up 1');
    expect(res.body).to.contain('audit_rows_lost_total');
  });

  it('unknown routes answer 404 in the error shape', async () => {
    const res = await t.inject({ method: 'GET', url: '/nope' });
    expect(res.statusCode).to.equal(404);
    expect(res.json()).to.include({ statusCode: 404, code: 'ROUTE_NOT_FOUND' });
    expect(res.json().requestId).to.be.a('string');
  });
});
