import { pino } from 'pino';
import { createKnex } from '../../kernel/database.ts';
import { createKernel } from '../../kernel/kernel.ts';
import { discoverPlugins } from '../../kernel/loader.ts';
import { SESSION_COOKIE } from '../../kernel/sessions.ts';

/**
 * Child process of the content benchmark: the real kernel with the data and content plugins,
 * production mode, public rate limit out of the way, a pool of 10, listening on a random port.
 * Reports `{ port, cookie }` (an administrator's session) to the parent over IPC.
 */
const url = process.env.BENCH_DATABASE_URL;
if (!url || !process.send) throw new Error('product-server runs as a child of bench/content.ts');

const env = {
  NODE_ENV: process.env.NODE_ENV ?? 'production',
  LOG_LEVEL: 'silent',
  HOST: '127.0.0.1',
  CMS_DATA_DIR: process.env.BENCH_DATA_DIR ?? '.bench-data',
  PUBLIC_CONTENT_RATE_LIMIT_PER_MINUTE: '1000000',
  DATABASE_POOL_MAX: '10',
};
const db = createKnex(url, 10);
const plugins = (await discoverPlugins()).filter((p) => p.id === 'data' || p.id === 'content');
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
process.send({ port, cookie: `${SESSION_COOKIE}=${session.token}` });

const stop = async () => {
  await kernel.close();
  await db.destroy();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);
