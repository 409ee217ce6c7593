import { reportReady } from '../lib/child-server.ts';
import { startBenchKernel } from '../lib/kernel-server.ts';
import { answerSqlCaptureRequests } from '../lib/sql-capture.ts';

/**
 * Child process of the search benchmark: the product kernel with the data, search and health plugins,
 * production mode, the public search rate limit out of the way, a pool of 10, a random port.
 * Reports `{ port }` over IPC, tells which SQL a request ran when asked (sql-capture.ts), and runs until
 * the parent disconnects or sends SIGTERM.
 */
const server = await startBenchKernel({
  file: 'bench/search/server.ts',
  parent: 'bench/search.ts',
  plugins: ['data', 'search', 'health'],
  env: { PUBLIC_SEARCH_RATE_LIMIT_PER_MINUTE: '1000000' },
});
answerSqlCaptureRequests();
reportReady({ port: server.port }, server.stop);
