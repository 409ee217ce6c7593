import { pino } from 'pino';
import { createKnex } from '../../kernel/database.ts';
import { createKernel } from '../../kernel/kernel.ts';
import { discoverPlugins } from '../../kernel/loader.ts';
import { SESSION_COOKIE } from '../../kernel/sessions.ts';
import { answerSqlCaptureRequests } from './sql-capture.ts';

/**
 * Child process of the data benchmark: the real product kernel with the data plugin, production
 * mode (the parent sets NODE_ENV=production in this process's environment too), public rate limit
 * out of the way, listening on a random port. Reports `{ port, cookie }` (an administrator's session)
 * to the parent over IPC and runs until the parent disconnects or sends SIGTERM.
 */
const url = process.env.BENCH_DATABASE_URL;
if (!url || !process.send) throw new Error('product-server runs as a child of bench/data.ts');

const env = {
  NODE_ENV: process.env.NODE_ENV ?? 'production',
  LOG_LEVEL: 'silent',
  HOST: '127.0.0.1',
  CMS_DATA_DIR: process.env.BENCH_DATA_DIR ?? '.bench-data',
  // Cached reads pass 35,000 req/s from one address: no limit may bite during a run.
  PUBLIC_DATA_RATE_LIMIT_PER_MINUTE: '1000000000',
  DATABASE_POOL_MAX: '10',
  // The parent runs one product without the public read cache (what a read costs) and one with it.
  PUBLIC_DATA_READ_CACHE_BYTES: process.env.BENCH_READ_CACHE_BYTES ?? String(64 * 1024 * 1024),
};
const db = createKnex(url, 10);
const plugins = (await discoverPlugins()).filter((p) => p.id === 'data');
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
  .create({ email: `bench-${process.pid}@example.test`, password: `bench-${process.pid}-pw-long`, roles: ['admin'] });
const session = await kernel.resolve('sessions').create(id, {});
answerSqlCaptureRequests();
process.send({ port, cookie: `${SESSION_COOKIE}=${session.token}` });

const stop = async () => {
  await kernel.close();
  await db.destroy();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);
