import Fastify from 'fastify';
import { pino } from 'pino';
import { createKnex } from '../../kernel/database.ts';
import { createKernel } from '../../kernel/kernel.ts';
import { definePlugin, type PluginManifest } from '../../kernel/plugin.ts';

/**
 * Child process of the kernel overhead benchmark (bench/kernel-overhead.ts). BENCH_SERVER=bare: a
 * bare Fastify 5 instance; BENCH_SERVER=kernel: the real kernel (no product plugins, production mode)
 * with one test plugin. Both serve the same constant JSON on GET /public/ping as a public route, so
 * the difference between them is the kernel's per-request work. Reports `{ port }` over IPC and answers `cpu` with its CPU time.
 */
const BODY = { ok: true, service: 'bench', items: [1, 2, 3] };
const mode = process.env.BENCH_SERVER;
if (!process.send || (mode !== 'bare' && mode !== 'kernel'))
  throw new Error('kernel-overhead-server runs as a child of bench/kernel-overhead.ts');

let port = 0;
let stop: () => Promise<void>;
if (mode === 'bare') {
  const app = Fastify({ logger: false });
  app.get('/public/ping', async () => BODY);
  app.get('/public/limited', async () => BODY);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  port = typeof address === 'object' && address ? address.port : 0;
  stop = () => app.close();
} else {
  const url = process.env.BENCH_DATABASE_URL;
  if (!url) throw new Error('BENCH_DATABASE_URL is required for the kernel server');
  const ping = definePlugin({
    id: 'bench-ping',
    processes: ['core-api'],
    needs: [],
    routes(app) {
      app.get('/public/ping', { config: { public: true } }, async () => BODY);
      // A public read limited per client address, as the public data routes are.
      app.get(
        '/public/limited',
        { config: { public: true, rateLimit: { key: 'address', windowMs: 60_000, limit: 1_000_000_000 } } },
        async () => BODY,
      );
    },
  }) as PluginManifest;
  const db = createKnex(url, 5);
  const kernel = await createKernel({
    service: 'all',
    env: {
      NODE_ENV: 'production',
      LOG_LEVEL: 'silent',
      HOST: '127.0.0.1',
      CMS_DATA_DIR: process.env.BENCH_DATA_DIR ?? '.bench-data',
    },
    plugins: [],
    extraPlugins: [ping],
    database: { db, url, close: () => db.destroy() },
    logger: pino({ level: 'silent' }),
    jobs: false,
  });
  await kernel.listen(0);
  const address = kernel.app.server.address();
  port = typeof address === 'object' && address ? address.port : 0;
  stop = async () => {
    await kernel.close();
    await db.destroy();
  };
}
process.send({ port });
// CPU time this process used so far: the parent divides the difference over a load by its requests, a
// per-request cost that other work on a shared machine distorts far less than req/s.
process.on('message', (message: { type?: string }) => {
  if (message?.type === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send!({ type: 'cpu:done', micros: user + system });
  }
});

const shutdown = async () => {
  await stop();
  process.exit(0);
};
process.on('SIGTERM', shutdown);
process.on('disconnect', shutdown);
