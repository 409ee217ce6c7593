import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import { pino } from 'pino';
import { createKnex } from '../../kernel/database.ts';
import { createKernel } from '../../kernel/kernel.ts';
import { discoverPlugins } from '../../kernel/loader.ts';
import { SESSION_COOKIE } from '../../kernel/sessions.ts';

/**
 * Child process of the asset benchmark: the product kernel with the assets plugin in production mode
 * on a random port (S3 when the parent passes S3_* variables). Reports `{ port, cookie, token }` over
 * IPC, samples its own resident memory on request (`rss-start` / `rss-stop`) and counts its full
 * garbage collections (`gc-count`).
 */
const url = process.env.BENCH_DATABASE_URL;
if (!url || !process.send) throw new Error('assets-server runs as a child of bench/assets.ts');
const token = 'bench-service-token-0123456789abcdef';
const env: Record<string, string> = {
  NODE_ENV: 'production',
  LOG_LEVEL: 'silent',
  HOST: '127.0.0.1',
  CMS_DATA_DIR: process.env.BENCH_DATA_DIR ?? '.bench-data',
  TOTP_ENCRYPTION_KEY: 'bench-only-totp-key',
  DAM_SERVICE_TOKEN: token,
  DATABASE_POOL_MAX: '10',
};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined && /^(S3_|ASSET_|DAM_|HEAP_)/.test(k)) env[k] = v;
const db = createKnex(url, 10);
const plugins = (await discoverPlugins()).filter((p) => p.id === 'assets');
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

// Full (mark-compact) collections, counted for the transform benchmark's report.
let majorGcs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries())
    if ((entry as { detail?: { kind?: number } }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) majorGcs++;
}).observe({ entryTypes: ['gc'] });

let sampler: NodeJS.Timeout | undefined;
let baseline = 0;
let peak = 0;
process.on('message', (message: { type?: string }) => {
  if (message.type === 'rss-start') {
    global.gc?.();
    baseline = process.memoryUsage().rss;
    peak = baseline;
    sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    process.send!({ type: 'rss-start:done', baseline });
  } else if (message.type === 'gc-count') {
    process.send!({ type: 'gc-count:done', majorGcs });
  } else if (message.type === 'rss-stop') {
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    process.send!({ type: 'rss-stop:done', baseline, peak });
  }
});
process.send({ port, cookie: `${SESSION_COOKIE}=${session.token}`, token });

const stop = async () => {
  await kernel.close();
  await db.destroy();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);
