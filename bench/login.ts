/**
 * POST /auth/login under load: starts the all-plugin kernel on a temporary database (TEST_DATABASE_URL
 * or an embedded cluster), creates one user and drives sign-in with autocannon (16 connections, 10 s),
 * then prints requests per second and latency percentiles. Run with `npm run bench:login`.
 *
 * Expect the numbers to be bound by scrypt (N=16384, ~50 ms of CPU per hash, run on libuv's thread
 * pool, at most UV_THREADPOOL_SIZE - 1 at once): that cost is the point of password hashing, not
 * something to optimise away.
 */
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import type { Db } from '../kernel/database.ts';
import { createKernel } from '../kernel/kernel.ts';
import { createTestDatabase, teardownTestDatabases } from '../test/helpers/database.ts';
import { measure } from './lib/load.ts';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const EMAIL = 'bench-login@example.test';
const PASSWORD = 'bench-login-password';

/**
 * autocannon drops its sockets when time is up, but the server still finishes the sign-ins it had
 * started (hash, then session insert). Waits until the pool has been idle for a second, so closing
 * the database does not cut those requests off.
 */
async function untilIdle(db: Db, maxMs = 15_000): Promise<void> {
  const pool = (db.client as { pool: { numUsed(): number; numPendingAcquires(): number } }).pool;
  const started = Date.now();
  let idleSince = Date.now();
  while (Date.now() - started < maxMs) {
    if (pool.numUsed() + pool.numPendingAcquires() > 0) idleSince = Date.now();
    else if (Date.now() - idleSince >= 1000) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function main(): Promise<void> {
  const database = await createTestDatabase();
  try {
    const kernel = await createKernel({
      service: 'all',
      database,
      env: {
        NODE_ENV: 'production',
        LOG_LEVEL: 'silent',
        HOST: '127.0.0.1',
        CMS_DATA_DIR: path.join(os.tmpdir(), 'cms-bench-login'),
        TOTP_ENCRYPTION_KEY: 'bench-only-totp-key',
        // Every request comes from one address; the per-address limit would answer 429 after 30.
        LOGIN_RATE_LIMIT_PER_MINUTE: '1000000',
      },
      logger: pino({ level: 'silent' }),
      jobs: false,
    });
    try {
      await kernel.resolve('users').create({ email: EMAIL, password: PASSWORD, roles: ['editor'] });
      const address = await kernel.listen(0);
      console.log(
        `POST /auth/login on ${address}: ${CONNECTIONS} connections for ${SECONDS} s (libuv pool ${process.env.UV_THREADPOOL_SIZE ?? 4} threads)`,
      );
      const result = await measure(
        address,
        { method: 'POST', build: () => ({ path: '/auth/login', body: { email: EMAIL, password: PASSWORD } }) },
        { connections: CONNECTIONS, seconds: SECONDS },
      );
      console.log(`  requests/s  ${result.rps.toFixed(1)}`);
      console.log(`  latency p50 ${result.p50} ms`);
      console.log(`  latency p99 ${result.p99} ms`);
      console.log(`  requests    ${result.requests} (non-2xx ${result.non2xx}, errors ${result.errors})`);
      if (result.non2xx > 0 || result.errors > 0) process.exitCode = 1;
      await untilIdle(database.db);
    } finally {
      await kernel.close();
    }
  } finally {
    await database.close();
    await teardownTestDatabases();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
