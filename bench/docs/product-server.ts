import { reportReady } from '../lib/child-server.ts';
import { startBenchKernel } from '../lib/kernel-server.ts';

/**
 * Child process of the documentation benchmark (bench/docs.ts): the real kernel with the assets,
 * content and docs plugins, production mode, the public documentation rate limit out of the way, on
 * the database and data folder the parent passes. Reports `{ port, cookie }` over IPC.
 */
const server = await startBenchKernel({
  file: 'docs/product-server',
  parent: 'bench/docs.ts',
  plugins: ['assets', 'content', 'docs'],
  env: {
    NODE_ENV: process.env.NODE_ENV ?? 'production',
    DOCS_PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
    TOTP_ENCRYPTION_KEY: 'bench-only-totp-key',
  },
});
reportReady({ port: server.port, cookie: await server.adminCookie() }, server.stop);
