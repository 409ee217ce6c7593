import { reportReady } from './child-server.ts';
import { startBenchKernel } from './kernel-server.ts';
import { answerSqlCaptureRequests } from './sql-capture.ts';

/**
 * Child process of the data benchmark: the real product kernel with the data plugin, production
 * mode (the parent sets NODE_ENV=production in this process's environment too), public rate limit
 * out of the way, listening on a random port. Reports `{ port, cookie }` (an administrator's session)
 * to the parent over IPC and runs until the parent disconnects or sends SIGTERM.
 */
const server = await startBenchKernel({
  file: 'product-server',
  parent: 'bench/data.ts',
  plugins: ['data'],
  env: {
    NODE_ENV: process.env.NODE_ENV ?? 'production',
    // Cached reads pass 35,000 req/s from one address: no limit may bite during a run.
    PUBLIC_DATA_RATE_LIMIT_PER_MINUTE: '1000000000',
    // The parent runs one product without the public read cache (what a read costs) and one with it.
    PUBLIC_DATA_READ_CACHE_BYTES: process.env.BENCH_READ_CACHE_BYTES ?? String(64 * 1024 * 1024),
    // bench:replica runs one product whose public reads go to a streaming replica.
    ...(process.env.BENCH_READ_URL ? { DATABASE_READ_URL: process.env.BENCH_READ_URL } : {}),
  },
});
const cookie = await server.adminCookie();
answerSqlCaptureRequests();
reportReady({ port: server.port, cookie }, server.stop);
