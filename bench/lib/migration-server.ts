import { reportReady } from './child-server.ts';
import { startBenchKernel } from './kernel-server.ts';

/**
 * Child process of the migration benchmark: the product kernel with the data and migration plugins in
 * production mode (the loopback source database allowed by OUTBOUND_ALLOW_HOSTS). Reports
 * `{ port, cookie }` over IPC, samples its resident memory on request (`rss-start` / `rss-stop`) and
 * times the data plugin's `importObjects` calls (the write step of each batch) and the bulk load's
 * index steps (`beginBulkLoad`, `finishBulkLoad`).
 */
const server = await startBenchKernel({
  file: 'migration-server',
  parent: 'bench/migration.ts',
  plugins: ['data', 'migration'],
  env: {
    TOTP_ENCRYPTION_KEY: 'bench-only-totp-key',
    INTEGRATION_SECRETS_ENCRYPTION_KEY: 'e5'.repeat(32),
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    MIGRATION_IMPORT_INLINE_MAX_OBJECTS: '10000000',
    // The batch size the parent was given (kernel-server passes only the env named here).
    MIGRATION_IMPORT_BATCH_OBJECTS: process.env.MIGRATION_IMPORT_BATCH_OBJECTS ?? '250',
    // 0 turns bulk loading off (indexes kept up row by row), for a comparison run.
    MIGRATION_IMPORT_BULK_MIN_OBJECTS: process.env.MIGRATION_IMPORT_BULK_MIN_OBJECTS ?? '10000',
  },
});
const cookie = await server.adminCookie();

// The port's one instance, as the migration plugin holds it: its write step is timed in place.
const data = server.kernel.resolve('dataObjects');
const importObjects = data.importObjects.bind(data);
let writeMs = 0;
let calls = 0;
data.importObjects = async (ctx, input) => {
  const started = performance.now();
  try {
    return await importObjects(ctx, input);
  } finally {
    writeMs += performance.now() - started;
    calls++;
  }
};

// The bulk load's index steps: dropping them before the objects, building them after.
let indexMs = 0;
for (const step of ['beginBulkLoad', 'finishBulkLoad'] as const) {
  const original = data[step].bind(data) as (...args: unknown[]) => Promise<never>;
  (data as unknown as Record<string, unknown>)[step] = async (...args: unknown[]) => {
    const started = performance.now();
    try {
      return await original(...args);
    } finally {
      indexMs += performance.now() - started;
    }
  };
}

let cpu0 = process.cpuUsage();
let sampler: NodeJS.Timeout | undefined;
let baseline = 0;
let peak = 0;
process.on('message', (message: { type?: string }) => {
  if (message.type === 'rss-start') {
    global.gc?.();
    baseline = process.memoryUsage().rss;
    peak = baseline;
    writeMs = 0;
    indexMs = 0;
    calls = 0;
    cpu0 = process.cpuUsage();
    sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    process.send?.({ type: 'rss-start:done', baseline });
  } else if (message.type === 'rss-stop') {
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    process.send?.({ type: 'rss-stop:done', baseline, peak, writeMs, indexMs, calls, cpu: process.cpuUsage(cpu0) });
  }
});
reportReady({ port: server.port, cookie }, server.stop);
