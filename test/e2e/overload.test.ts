import { expect } from 'chai';
import net from 'node:net';
import { pino } from 'pino';
import { createKnex, type DatabaseHandle } from '../../kernel/database.ts';
import { createKernel, type Kernel } from '../../kernel/kernel.ts';
import { discoverPlugins } from '../../kernel/loader.ts';
import { SESSION_COOKIE } from '../../kernel/sessions.ts';
import { createTestDatabase } from '../helpers/database.ts';

/** A TCP relay to the database that the test can cut and restore. */
async function relayTo(target: URL) {
  const sockets = new Set<net.Socket>();
  let server: net.Server;
  const listen = (port: number) =>
    new Promise<number>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(Number(target.port), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
    });
  const port = await listen(0);
  return {
    port,
    async cut() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
    restore: () => listen(port),
  };
}

/** Boots identity + data + health on `db` and returns the kernel with an admin cookie. */
async function boot(db: ReturnType<typeof createKnex>, url: string): Promise<{ kernel: Kernel; cookie: string }> {
  const kernel = await createKernel({
    service: 'all',
    plugins: (await discoverPlugins()).filter((p) => ['health', 'identity', 'data'].includes(p.id)),
    env: { NODE_ENV: 'production', LOG_LEVEL: 'silent', TOTP_ENCRYPTION_KEY: 'k'.repeat(64) },
    database: { db, url, close: () => db.destroy() },
    logger: pino({ level: 'silent' }),
    jobs: false,
    migrate: false,
  });
  const { id } = await kernel.resolve('users').create({
    email: `ops-${Date.now()}@example.test`,
    password: 'operator-pass-1',
    displayName: 'ops',
    roles: ['admin'],
  });
  const session = await kernel.resolve('sessions').create(id, {});
  return { kernel, cookie: `${SESSION_COOKIE}=${session.token}` };
}

describe('overload and outage answer 503 with Retry-After, never 500', () => {
  let database: DatabaseHandle;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.close());

  it('every route but the liveness probe answers 503 + Retry-After while the database is unreachable, and recovers', async () => {
    const url = new URL(database.url);
    const relay = await relayTo(new URL(database.url));
    url.port = String(relay.port);
    const db = createKnex(url.toString(), 3);
    const { kernel, cookie } = await boot(db, url.toString());
    try {
      const calls = [
        { method: 'GET' as const, url: '/auth/me', headers: { cookie } },
        { method: 'GET' as const, url: '/data-classes', headers: { cookie } },
        { method: 'GET' as const, url: '/public/data-objects?className=Anything' },
        { method: 'POST' as const, url: '/auth/login', payload: { email: 'a@example.test', password: 'whatever-1' } },
      ];
      expect((await kernel.app.inject(calls[0])).statusCode).to.equal(200);
      await relay.cut();
      for (const call of calls) {
        const res = await kernel.app.inject(call);
        expect(res.statusCode, `${call.method} ${call.url}: ${res.body}`).to.equal(503);
        expect(res.headers['retry-after'], call.url).to.equal('5');
        expect(res.json()).to.include({ code: 'DATABASE_UNAVAILABLE' });
      }
      expect((await kernel.app.inject({ method: 'GET', url: '/health/live' })).statusCode).to.equal(200);
      await relay.restore();
      expect((await kernel.app.inject(calls[0])).statusCode).to.equal(200);
    } finally {
      await relay.cut().catch(() => undefined);
      await kernel.close();
      await db.destroy();
    }
  });

  it('an exhausted connection pool answers 503 + Retry-After instead of "Timeout acquiring a connection"', async () => {
    const db = createKnex(database.url, 2, undefined, { acquireTimeoutMs: 300 });
    const { kernel, cookie } = await boot(db, database.url);
    const held = [await db.client.acquireConnection(), await db.client.acquireConnection()];
    try {
      const res = await kernel.app.inject({ method: 'GET', url: '/data-classes', headers: { cookie } });
      expect(res.statusCode).to.equal(503);
      expect(res.headers['retry-after']).to.equal('5');
      expect(res.json().message).not.to.match(/pool|knex|Timeout acquiring/i);
    } finally {
      for (const connection of held) await db.client.releaseConnection(connection);
      await kernel.close();
      await db.destroy();
    }
  });
});
