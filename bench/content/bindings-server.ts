import { reportReady } from '../lib/child-server.ts';
import { startBenchKernel } from '../lib/kernel-server.ts';

/**
 * Child process of the data bindings benchmark: the real kernel with the data and content plugins,
 * production mode, public rate limit out of the way; `PUBLIC_DATA_READ_CACHE_BYTES` passed through so
 * the parent can run one server with the data plugin's read cache and one without.
 */
const server = await startBenchKernel({
  file: 'bindings-server',
  parent: 'bench/content-bindings.ts',
  plugins: ['data', 'content'],
  env: {
    NODE_ENV: process.env.NODE_ENV ?? 'production',
    PUBLIC_CONTENT_RATE_LIMIT_PER_MINUTE: '1000000',
    ...(process.env.PUBLIC_DATA_READ_CACHE_BYTES
      ? { PUBLIC_DATA_READ_CACHE_BYTES: process.env.PUBLIC_DATA_READ_CACHE_BYTES }
      : {}),
  },
});
reportReady({ port: server.port, cookie: await server.adminCookie() }, server.stop);
