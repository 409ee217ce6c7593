import { expect } from 'chai';
import { expectNoLeaks } from '../../../test/helpers/answer-leaks.ts';
import { startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';

const METRICS_TOKEN = 'metrics-token-that-never-leaves-0123';

/**
 * The health plugin has no services of its own: its answers are built in the routes. What is checked
 * here is that they carry exactly their declared fields, and that neither the metrics token nor the
 * database address reaches them.
 */
describe('health: no internal field reaches a client', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let forbidden: string[];

  before(async () => {
    t = await startTestKernel({ plugins: ['health'], env: { METRICS_TOKEN } });
    const { DATABASE_URL } = t.kernel.resolve('config') as { DATABASE_URL?: string };
    forbidden = [METRICS_TOKEN, ...(DATABASE_URL ? [DATABASE_URL] : [])];
  });
  after(() => t?.close());

  it('answers readiness and liveness with their declared fields only', async () => {
    const ready = await t.call('GET', '/health', null);
    const live = await t.call('GET', '/health/live', null);
    expect(ready.statusCode, ready.body).to.equal(200);
    expect(live.statusCode, live.body).to.equal(200);
    expect(ready.json()).to.have.keys('status', 'uptimeSeconds');
    expect(live.json()).to.deep.equal({ status: 'ok' });
    expectNoLeaks([ready, live], { values: forbidden });
  });

  it('answers the metrics exposition without the token it was asked with', async () => {
    const res = await t.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.body).to.contain('# TYPE');
    expectNoLeaks(res, { values: forbidden });
  });
});
