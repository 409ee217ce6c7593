import { expect } from 'chai';
import { Type } from '@sinclair/typebox';
import pg from 'pg';
import { ManualClock } from '../../kernel/clock.ts';
import { definePlugin } from '../../kernel/plugin.ts';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';

describe('health during a database outage', () => {
  let t: TestKernel;
  let admin: pg.Client;
  let database: string;
  before(async () => {
    t = await startTestKernel({ plugins: ['health'] });
    database = (await t.db.raw('select current_database() as name')).rows[0].name;
    const url = new URL((t.db.client.config.connection as { connectionString: string }).connectionString);
    url.pathname = '/postgres';
    admin = new pg.Client({ connectionString: url.toString() });
    await admin.connect();
  });
  after(async () => {
    await admin.query(`ALTER DATABASE ${database} CONNECTION LIMIT -1`).catch(() => undefined);
    await admin.end();
    await t.close();
  });

  it('answers 503 while the database refuses connections and recovers by itself', async () => {
    expect((await t.inject({ method: 'GET', url: '/health' })).statusCode).to.equal(200);

    // Cut the database off: no new connections, existing ones terminated.
    await admin.query(`ALTER DATABASE ${database} CONNECTION LIMIT 0`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
    const down = await t.inject({ method: 'GET', url: '/health' });
    expect(down.statusCode).to.equal(503);
    expect(down.json()).to.include({ status: 'unavailable', database: 'down' });
    expect((await t.inject({ method: 'GET', url: '/health/live' })).statusCode).to.equal(200);

    await admin.query(`ALTER DATABASE ${database} CONNECTION LIMIT -1`);
    const up = await t.inject({ method: 'GET', url: '/health' });
    expect(up.statusCode).to.equal(200);
    expect(up.json()).to.include({ status: 'ok' }).and.not.to.have.property('database');
  });
});

describe('session purge', () => {
  it('deletes rows a week after expiry or revocation, keeps the others', async () => {
    const clock = new ManualClock();
    const t = await startTestKernel({ plugins: ['health'], clock, env: { SESSION_TTL_HOURS: '1' } });
    try {
      const sessions = t.kernel.resolve('sessions');
      const user = await t.createUser({ roles: ['viewer'] });
      const expiring = await sessions.create(user.id, {});
      const revoked = await sessions.create(user.id, {});
      await sessions.revoke(revoked.id);
      clock.advance(2 * 3600_000); // both past their end, neither a week old
      const fresh = await sessions.create(user.id, {});
      expect(await sessions.purge()).to.equal(0);
      expect(await sessions.resolve(expiring.token)).to.equal(null);
      expect(await sessions.resolve(revoked.token)).to.equal(null);

      clock.advance(7 * 24 * 3600_000);
      const purged = await sessions.purge();
      const left = await t.db('sessions').pluck('id');
      expect(left).not.to.include(expiring.id).and.not.to.include(revoked.id);
      // The fresh one expired too after the jump, but only a week ago at most: kept.
      expect(left).to.include(fresh.id);
      expect(purged).to.be.at.least(2);
    } finally {
      await t.close();
    }
  });
});

describe('graceful shutdown', () => {
  it('finishes an in-flight request before closing', async () => {
    const slow = definePlugin({
      id: 'slow-test',
      services: ['core-api'],
      needs: [],
      async routes(app) {
        app.get('/slow', { config: { public: true }, schema: { response: { 200: Type.Object({ done: Type.Boolean() }) } } }, async () => {
          await new Promise((r) => setTimeout(r, 300));
          return { done: true };
        });
      },
    });
    const t = await startTestKernel({ plugins: ['health'], extraPlugins: [slow] });
    const address = (await t.kernel.listen(0)).replace('0.0.0.0', '127.0.0.1');
    const pending = fetch(`${address}/slow`);
    await new Promise((r) => setTimeout(r, 50));
    const closing = t.close();
    const res = await pending;
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ done: true });
    await closing;
  });
});
