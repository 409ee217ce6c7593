import { expect } from 'chai';
import { definePlugin, type PluginManifest } from '../../kernel/plugin.ts';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';
import { ANY_JSON_ANSWER } from '../helpers/any-answer.ts';

// Each route hands a client's text to PostgreSQL unchecked, as a route that forgot a bound would.
const CASTS: Record<string, { sql: string; value: string; sqlstate: string }> = {
  'bigint-out-of-range': { sql: 'select ?::bigint as v', value: '100000000000000000000', sqlstate: '22003' },
  'timestamp-out-of-range': {
    sql: 'select ?::timestamptz as v',
    value: '4715-01-01 00:00:00+00 BC',
    sqlstate: '22008',
  },
  'invalid-json': { sql: 'select ?::jsonb as v', value: '"\\ud800"', sqlstate: '22P02' },
};

const dbPlugin = definePlugin({
  id: 'test-db-errors',
  processes: ['core-api'],
  needs: ['db'],
  routes(app, { db }) {
    for (const [name, cast] of Object.entries(CASTS)) {
      app.get(
        `/t/db/${name}`,
        { config: { public: true }, schema: { response: ANY_JSON_ANSWER } },
        async () => (await db.raw(cast.sql, [cast.value])).rows,
      );
    }
    app.get(
      '/t/db/missing-table',
      { config: { public: true }, schema: { response: ANY_JSON_ANSWER } },
      async () => (await db.raw('select * from no_such_table')).rows,
    );
  },
}) as PluginManifest;

describe('HTTP: database errors the client caused', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ plugins: ['health'], extraPlugins: [dbPlugin] });
  });
  after(() => t.close());

  it('answers 400 INVALID_VALUE for a data exception (SQLSTATE class 22) that slipped past the checks', async () => {
    for (const [name, cast] of Object.entries(CASTS)) {
      const res = await t.inject({ method: 'GET', url: `/t/db/${name}` });
      expect(res.statusCode, `${name} (${cast.sqlstate}): ${res.body}`).to.equal(400);
      expect(res.json(), name).to.include({ statusCode: 400, code: 'INVALID_VALUE' });
      expect(res.json().message, name).to.not.match(/select|\$1/i);
    }
  });

  it('still answers 500 for other database errors', async () => {
    const res = await t.inject({ method: 'GET', url: '/t/db/missing-table' });
    expect(res.statusCode).to.equal(500);
    expect(res.json().code).to.equal('INTERNAL');
  });
});
