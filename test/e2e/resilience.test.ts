import { expect } from 'chai';
import { Type } from '@sinclair/typebox';
import net from 'node:net';
import { pino } from 'pino';
import { createKnex, type DatabaseHandle } from '../../kernel/database.ts';
import { createKernel, type Kernel } from '../../kernel/kernel.ts';
import { discoverPlugins } from '../../kernel/loader.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { ManualClock } from '../../kernel/clock.ts';
import { definePlugin } from '../../kernel/plugin.ts';
import { startTestKernel } from '../helpers/kernel.ts';

/** A TCP relay to the database that a test can cut (every socket dropped, port closed) and restore. */
async function databaseRelay(target: URL) {
  const [host, targetPort] = [target.hostname, Number(target.port)];
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server = net.createServer((client) => {
        const upstream = net.connect(targetPort, host);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server!.address() as net.AddressInfo).port));
    });
  const port = await listen(0);
  return {
    port,
    async cut() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server!.close(r));
    },
    restore: () => listen(port),
  };
}

describe('health during a database outage', () => {
  let kernel: Kernel;
  let database: DatabaseHandle;
  let relay: Awaited<ReturnType<typeof databaseRelay>>;
  before(async () => {
    database = await createTestDatabase();
    const url = new URL(database.url);
    relay = await databaseRelay(url);
    url.port = String(relay.port);
    const db = createKnex(url.toString(), 2);
    kernel = await createKernel({
      service: 'all',
      plugins: (await discoverPlugins()).filter((p) => p.id === 'health'),
      env: { NODE_ENV: 'test', LOG_LEVEL: 'silent' },
      database: { db, url: url.toString(), close: () => db.destroy() },
      logger: pino({ level: 'silent' }),
      jobs: false,
    });
  });
  after(async () => {
    await kernel.close();
    await kernel.resolve('db').destroy();
    await database.close();
  });

  it('answers 503 while the database does not answer and recovers by itself', async () => {
    const health = () => kernel.app.inject({ method: 'GET', url: '/health' });
    expect((await health()).statusCode).to.equal(200);

    await relay.cut();
    const down = await health();
    expect(down.statusCode).to.equal(503);
    expect(down.json()).to.include({ status: 'unavailable', database: 'down' });
    expect((await kernel.app.inject({ method: 'GET', url: '/health/live' })).statusCode).to.equal(200);

    await relay.restore();
    const up = await health();
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
    let started!: () => void;
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    const slow = definePlugin({
      id: 'slow-test',
      processes: ['core-api'],
      needs: [],
      async routes(app) {
        app.get(
          '/slow',
          { config: { public: true }, schema: { response: { 200: Type.Object({ done: Type.Boolean() }) } } },
          async () => {
            started();
            await new Promise((r) => setTimeout(r, 300));
            return { done: true };
          },
        );
      },
    });
    const t = await startTestKernel({ plugins: ['health'], extraPlugins: [slow] });
    const address = (await t.kernel.listen(0)).replace('0.0.0.0', '127.0.0.1');
    const pending = fetch(`${address}/slow`);
    // Close only once the handler runs: the request is in flight, not merely sent.
    await inFlight;
    const closing = t.close();
    const res = await pending;
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ done: true });
    await closing;
  });
});
