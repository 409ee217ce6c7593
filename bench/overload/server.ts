import { reportReady } from '../lib/child-server.ts';
import { startBenchKernel } from '../lib/kernel-server.ts';

/**
 * Child process of the overload run: the all-in-one product (identity, data, audit, health) in
 * production mode on a random port, with the default pool of 10. Reports `{ port, cookie, pid }`.
 */
const server = await startBenchKernel({
  file: 'bench/overload/server.ts',
  parent: 'bench/overload.ts',
  plugins: ['identity', 'data', 'audit', 'health'],
  env: { TOTP_ENCRYPTION_KEY: 'b'.repeat(64) },
});
reportReady({ port: server.port, cookie: await server.adminCookie(), pid: process.pid }, server.stop);
