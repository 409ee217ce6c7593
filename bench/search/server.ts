import { pino } from 'pino';
import { createKnex } from '../../kernel/database.ts';
import { createKernel } from '../../kernel/kernel.ts';
import { discoverPlugins } from '../../kernel/loader.ts';

/**
 * Child process of the search benchmark: the product kernel with the data, search and health plugins,
 * production mode, the public search rate limit out of the way, a pool of 10, a random port.
 * Reports `{ port }` over IPC and runs until the parent disconnects or sends SIGTERM.
 */
const url = process.env.BENCH_DATABASE_URL;
if (!url || !process.send) throw new Error('bench/search/server.ts runs as a child of bench/search.ts');

const env = {
  NODE_ENV: 'production',
  LOG_LEVEL: 'silent',
  HOST: '127.0.0.1',
  CMS_DATA_DIR: process.env.BENCH_DATA_DIR ?? '.bench-data',
  PUBLIC_SEARCH_RATE_LIMIT_PER_MINUTE: '1000000',
  DATABASE_POOL_MAX: '10',
};
const db = createKnex(url, 10);
const plugins = (await discoverPlugins()).filter((p) => ['data', 'search', 'health'].includes(p.id));
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
process.send({ port: typeof address === 'object' && address ? address.port : 0 });

const stop = async () => {
  await kernel.close();
  await db.destroy();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);
