import Fastify from 'fastify';
import { definePlugin, type PluginManifest } from '../../kernel/plugin.ts';
import { portOf, reportReady } from './child-server.ts';
import { startBenchKernel } from './kernel-server.ts';

/**
 * Child process of the kernel overhead benchmark (bench/kernel-overhead.ts). BENCH_SERVER=bare: a
 * bare Fastify 5 instance; BENCH_SERVER=kernel: the real kernel (no product plugins, production mode)
 * with one test plugin. Both serve the same constant JSON on GET /public/ping as a public route, so
 * the difference between them is the kernel's per-request work. Reports `{ port }` over IPC and answers `cpu` with its CPU time.
 */
const BODY = { ok: true, service: 'bench', items: [1, 2, 3] };
// The kernel refuses a route without an answer schema; the bare server serialises without one.
const ANSWER = {
  response: {
    200: {
      type: 'object',
      properties: {
        ok: { type: 'boolean' },
        service: { type: 'string' },
        items: { type: 'array', items: { type: 'integer' } },
      },
    },
  },
} as const;
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
  port = portOf(app.server);
  stop = () => app.close();
} else {
  const ping = definePlugin({
    id: 'bench-ping',
    processes: ['core-api'],
    needs: [],
    routes(app) {
      app.get('/public/ping', { config: { public: true }, schema: ANSWER }, async () => BODY);
      // A public read limited per client address, as the public data routes are.
      app.get(
        '/public/limited',
        {
          config: { public: true, rateLimit: { key: 'address', windowMs: 60_000, limit: 1_000_000_000 } },
          schema: ANSWER,
        },
        async () => BODY,
      );
    },
  }) as PluginManifest;
  const server = await startBenchKernel({
    file: 'kernel-overhead-server',
    parent: 'bench/kernel-overhead.ts',
    plugins: [],
    extraPlugins: [ping],
    pool: 5,
  });
  port = server.port;
  stop = server.stop;
}
// CPU time this process used so far: the parent divides the difference over a load by its requests, a
// per-request cost that other work on a shared machine distorts far less than req/s.
process.on('message', (message: { type?: string }) => {
  if (message?.type === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send!({ type: 'cpu:done', micros: user + system });
  }
});
reportReady({ port }, stop);
