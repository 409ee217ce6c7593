import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import { reportReady } from './child-server.ts';
import { startBenchKernel } from './kernel-server.ts';

/**
 * Child process of the asset benchmark: the product kernel with the assets plugin in production mode
 * on a random port (S3 when the parent passes S3_* variables). Reports `{ port, cookie, token }` over
 * IPC, samples its own resident memory on request (`rss-start` / `rss-stop`) and counts its full
 * garbage collections (`gc-count`).
 */
const token = 'bench-service-token-0123456789abcdef';
const env: Record<string, string> = { TOTP_ENCRYPTION_KEY: 'bench-only-totp-key', DAM_SERVICE_TOKEN: token };
for (const [k, v] of Object.entries(process.env)) if (v !== undefined && /^(S3_|ASSET_|DAM_|HEAP_)/.test(k)) env[k] = v;
const server = await startBenchKernel({ file: 'assets-server', parent: 'bench/assets.ts', plugins: ['assets'], env });
const cookie = await server.adminCookie();

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
reportReady({ port: server.port, cookie, token }, server.stop);
