import v8 from 'node:v8';
import vm from 'node:vm';
import { reportReady } from '../lib/child-server.ts';
import { startBenchKernel } from '../lib/kernel-server.ts';

/**
 * Child process of the overload run: the all-in-one product (identity, data, audit, health) in
 * production mode on a random port, with the default pool of 10. Reports `{ port, cookie, pid }`.
 * Answers `memory` over IPC with its memory figures (MB) as they are and after a full collection,
 * so the parent can tell memory the process still holds from memory the collector has not yet
 * given back.
 */
v8.setFlagsFromString('--expose-gc');
const fullGc = vm.runInNewContext('gc') as () => void;

const server = await startBenchKernel({
  file: 'bench/overload/server.ts',
  parent: 'bench/overload.ts',
  plugins: ['identity', 'data', 'audit', 'health'],
  env: { TOTP_ENCRYPTION_KEY: 'b'.repeat(64) },
});

const mb = (bytes: number) => bytes / 1024 / 1024;
const figures = () => {
  const m = process.memoryUsage();
  return { rss: mb(m.rss), heapUsed: mb(m.heapUsed), heapTotal: mb(m.heapTotal), external: mb(m.external) };
};
process.on('message', (message: { type?: string }) => {
  if (message?.type !== 'memory') return;
  const before = figures();
  fullGc();
  process.send!({ type: 'memory:done', before, afterGc: figures() });
});
reportReady({ port: server.port, cookie: await server.adminCookie(), pid: process.pid }, server.stop);
