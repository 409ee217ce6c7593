import { reportReady } from '../lib/child-server.ts';
import { startBenchKernel } from '../lib/kernel-server.ts';

/**
 * Child process of the content benchmark: the real kernel with the data and content plugins,
 * production mode, public rate limit out of the way, a pool of 10, listening on a random port.
 * Reports `{ port, cookie }` (an administrator's session) to the parent over IPC.
 */
const server = await startBenchKernel({
  file: 'product-server',
  parent: 'bench/content.ts',
  plugins: ['data', 'content'],
  env: { NODE_ENV: process.env.NODE_ENV ?? 'production', PUBLIC_CONTENT_RATE_LIMIT_PER_MINUTE: '1000000' },
});
reportReady({ port: server.port, cookie: await server.adminCookie() }, server.stop);
