import { pino } from 'pino';
import { createKnex } from '../../kernel/database.ts';
import { createKernel } from '../../kernel/kernel.ts';
import { discoverPlugins } from '../../kernel/loader.ts';
import { SESSION_COOKIE } from '../../kernel/sessions.ts';

/**
 * Child process of the overload run: the all-in-one product (identity, data, audit, health) in
 * production mode on a random port, with the default pool of 10. Reports `{ port, cookie, pid }`.
 */
const url = process.env.BENCH_DATABASE_URL;
if (!url || !process.send) throw new Error('bench/overload/server.ts runs as a child of bench/overload.ts');

const env = {
  NODE_ENV: 'production',
  LOG_LEVEL: 'silent',
  HOST: '127.0.0.1',
  CMS_DATA_DIR: '.bench-data',
  TOTP_ENCRYPTION_KEY: 'b'.repeat(64),
};
const db = createKnex(url, 10);
const plugins = (await discoverPlugins()).filter((p) => ['identity', 'data', 'audit', 'health'].includes(p.id));
const kernel = await createKernel({
  service: 'all',
  env,
  plugins,
  database: { db, url, close: () => db.destroy() },
  logger: pino({ level: 'silent' }),
  jobs: false,
});
await kernel.listen(0);
const address = kernel.app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
const { id } = await kernel
  .resolve('users')
  .create({ email: `load-${process.pid}@example.test`, password: `load-${process.pid}-pw-long`, roles: ['admin'] });
const session = await kernel.resolve('sessions').create(id, {});
process.send({ port, cookie: `${SESSION_COOKIE}=${session.token}`, pid: process.pid });

const stop = async () => {
  await kernel.close();
  await db.destroy();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);
