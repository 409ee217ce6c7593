import { reportReady } from './child-server.ts';
import { startBenchKernel } from './kernel-server.ts';

/**
 * Child process of the website bundle benchmark: the product kernel with the content, data, assets and
 * bundles plugins in production mode. Reports `{ port, cookie }` over IPC and samples its own resident
 * memory on request (`rss-start` / `rss-stop`, every 5 ms in between).
 */
const env: Record<string, string> = {
  TOTP_ENCRYPTION_KEY: 'bench-only-totp-key',
  ASSET_MAX_FILE_BYTES: String(64 * 1024 * 1024),
};
const server = await startBenchKernel({
  file: 'bundles-server',
  parent: 'bench/bundles.ts',
  plugins: ['data', 'content', 'assets', 'bundles'],
  env,
});
const cookie = await server.adminCookie();

let sampler: NodeJS.Timeout | undefined;
let baseline = 0;
let peak = 0;
process.on('message', (message: { type?: string }) => {
  if (message.type === 'rss-start') {
    global.gc?.();
    baseline = process.memoryUsage().rss;
    peak = baseline;
    sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    process.send?.({ type: 'rss-start:done', baseline });
  } else if (message.type === 'rss-stop') {
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    process.send?.({ type: 'rss-stop:done', baseline, peak });
  }
});
reportReady({ port: server.port, cookie }, server.stop);
