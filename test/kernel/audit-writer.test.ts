import { expect } from 'chai';
import { requestContext } from '../../kernel/http.ts';
import { definePlugin, type PluginManifest } from '../../kernel/plugin.ts';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';
import { ANY_JSON_ANSWER } from '../helpers/any-answer.ts';

const METRICS_TOKEN = 'metrics-token-for-tests';

// Routes whose audit write fails in three different ways after the change itself succeeded.
const failingAudit = definePlugin({
  id: 'test-failing-audit',
  processes: ['core-api'],
  needs: ['db', 'audit'],
  routes(app, deps) {
    app.post(
      '/t/in-transaction',
      { config: { public: true }, schema: { response: ANY_JSON_ANSWER } },
      async (request) => {
        const id = await deps.db.transaction(async (trx) => {
          const [row] = await trx('t_things').insert({ name: 'kept' }).returning('id');
          // action is NOT NULL: the insert fails inside the writer's savepoint, the transaction goes on.
          await deps.audit.record(requestContext(request), { action: null as unknown as string }, trx);
          return row.id as number;
        });
        return { id };
      },
    );
    app.post(
      '/t/unserialisable',
      { config: { public: true }, schema: { response: ANY_JSON_ANSWER } },
      async (request) => {
        const [row] = await deps.db('t_things').insert({ name: 'kept too' }).returning('id');
        await deps.audit.record(requestContext(request), { action: 'thing.create', after: { size: 10n } });
        return { id: row.id as number };
      },
    );
    app.post('/t/table-gone', { config: { public: true }, schema: { response: ANY_JSON_ANSWER } }, async (request) => {
      await deps.audit.record(requestContext(request), { action: 'thing.create' });
      return { ok: true };
    });
  },
}) as PluginManifest;

describe('audit writer: a failed audit write never fails the request', () => {
  let t: TestKernel;
  const lost = async () => {
    const res = await t.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    return Number(/^audit_rows_lost_total (\d+)$/m.exec(res.body)?.[1]);
  };
  const health = async () => (await t.inject({ method: 'GET', url: '/health' })).json();

  // The lost-row count lives in the process, so each case gets a kernel of its own.
  beforeEach(async () => {
    t = await startTestKernel({ plugins: ['health'], extraPlugins: [failingAudit], env: { METRICS_TOKEN } });
    await t.db.schema.createTable('t_things', (tb) => {
      tb.increments('id');
      tb.text('name');
    });
  });
  afterEach(() => t.close());

  it('starts healthy with no lost row', async () => {
    expect(await health()).not.to.have.property('audit');
    expect(await lost()).to.equal(0);
  });

  it('keeps the change when the audit insert fails inside its transaction', async () => {
    const res = await t.inject({ method: 'POST', url: '/t/in-transaction' });
    expect(res.statusCode).to.equal(200);
    expect(await t.db('t_things').where({ id: res.json().id }).first()).to.include({ name: 'kept' });
    expect(t.kernel.resolve('audit').lostRows).to.equal(1);
    expect(await health()).to.include({ status: 'ok', audit: 'degraded' });
    expect(await lost()).to.equal(1);
  });

  it('keeps the change when the entry cannot be serialised', async () => {
    const res = await t.inject({ method: 'POST', url: '/t/unserialisable' });
    expect(res.statusCode).to.equal(200);
    expect(await t.db('t_things').where({ id: res.json().id }).first()).to.include({ name: 'kept too' });
    expect(t.kernel.resolve('audit').lostRows).to.equal(1);
    expect(await health()).to.include({ status: 'ok', audit: 'degraded' });
    expect(await lost()).to.equal(1);
  });

  it('answers normally while the table is unreachable', async () => {
    await t.db.raw('ALTER TABLE audit_log RENAME TO audit_log_away');
    try {
      const res = await t.inject({ method: 'POST', url: '/t/table-gone' });
      expect(res.statusCode).to.equal(200);
    } finally {
      await t.db.raw('ALTER TABLE audit_log_away RENAME TO audit_log');
    }
    expect(await lost()).to.equal(1);
    expect(await t.db('audit_log').count<{ count: number }[]>({ count: '*' })).to.deep.equal([{ count: 0 }]);
  });
});
