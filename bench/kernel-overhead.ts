/**
 * Kernel overhead (`npm run bench:kernel`): what the kernel's per-request work costs on a public read,
 * without any plugin or database work in the way.
 *
 * - Bare: a child process (bench/lib/kernel-overhead-server.ts, BENCH_SERVER=bare), Fastify 5 with one
 *   route answering a constant small JSON.
 * - Kernel: the same route in a test plugin (`config: { public: true }`) of the real kernel
 *   (`createKernel`, no product plugins, NODE_ENV=production), on a temporary database migrated with the
 *   kernel's migrations only (the route never touches it).
 * - Three request shapes: a plain GET, a GET with a query string and a cookie header (what a browser
 *   sends to a public page of a site that also has a session cookie), and a plain GET of a route limited
 *   per client address like the public data routes (the bare server's route has no limit).
 * - wrk `-t1 -c32 --latency` for BENCH_SECONDS (default 5) per measure, after a 1 s warm-up, bare and
 *   kernel alternately for BENCH_ROUNDS rounds (default 3); the median of the rounds' kernel/bare
 *   ratios is reported, so load from other processes on the machine weighs on both sides alike.
 * - CPU time per request of each server process (process.cpuUsage over the load / requests), and the
 *   kernel's extra CPU per request: the figure to compare before and after a change on a loaded machine.
 *
 * Environment: BENCH_SECONDS, BENCH_ROUNDS, TEST_DATABASE_URL (else an embedded cluster is started),
 * BENCH_CHILD_NODE_ARGS (extra node flags for both servers, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import type { DatabaseHandle } from '../kernel/database.ts';
import { migrationSets } from '../kernel/kernel.ts';
import { createTestDatabase, teardownTestDatabases } from '../test/helpers/database.ts';
import { startChild, type ChildServer } from './lib/children.ts';
import { runLoad, loadToolName, type LoadResult, type PreparedRequest } from './lib/load.ts';
import { stopWrk } from './lib/wrk.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 32;
const log = (...args: unknown[]) => console.error('[bench:kernel]', ...args);
const fmt = (n: number, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits });

const SCENARIOS: Record<string, PreparedRequest[]> = {
  'plain GET': [{ method: 'GET', path: '/public/ping' }],
  'query + cookie': [
    {
      method: 'GET',
      path: '/public/ping?limit=20&sort=title&filter%5Bslug%5D=hello-world',
      headers: {
        Cookie:
          'cms_session=0123456789abcdef0123456789abcdef0123456789abcdef; theme=dark; _ga=GA1.2.3456789.1234567890',
      },
    },
  ],
  'limited GET': [{ method: 'GET', path: '/public/limited' }],
};

const children: Array<ChildServer<{ port: number }>> = [];
let database: DatabaseHandle | undefined;
const cleanup = async () => {
  stopWrk();
  for (const child of children.reverse()) await child.stop();
  await database?.close();
  await teardownTestDatabases();
};
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void cleanup().finally(() => process.exit(130)));

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

type Measured = LoadResult & { cpuMicrosPerRequest: number };
const cpuMicros = async (child: ChildServer<{ port: number }>) => (await child.ask<{ micros: number }>('cpu')).micros;

async function measure(child: ChildServer<{ port: number }>, requests: PreparedRequest[]): Promise<Measured> {
  const url = `http://127.0.0.1:${child.info.port}`;
  await runLoad(url, requests, { connections: CONNECTIONS, seconds: 1 });
  const before = await cpuMicros(child);
  const result = await runLoad(url, requests, { connections: CONNECTIONS, seconds: SECONDS });
  const cpu = (await cpuMicros(child)) - before;
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} socket errors`);
  return { ...result, cpuMicrosPerRequest: cpu / result.requests };
}

try {
  log('preparing a database with the kernel migrations');
  database = await createTestDatabase({ migrations: migrationSets([]) });
  const bare = await startChild<{ port: number }>('kernel-overhead-server.ts', { BENCH_SERVER: 'bare' });
  children.push(bare);
  const kernel = await startChild<{ port: number }>('kernel-overhead-server.ts', {
    BENCH_SERVER: 'kernel',
    BENCH_DATABASE_URL: database.url,
  });
  children.push(kernel);

  const lines = [
    `# Kernel overhead on a public GET (${loadToolName()}, ${CONNECTIONS} connections, ${SECONDS} s x ${ROUNDS} rounds)`,
    '',
    '| scenario | bare req/s | bare p50 / p99 ms | bare CPU µs/req | kernel req/s | kernel p50 / p99 ms | kernel CPU µs/req | req/s kernel / bare | CPU kernel - bare µs/req |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [name, requests] of Object.entries(SCENARIOS)) {
    const rounds: Array<{ bare: Measured; kernel: Measured }> = [];
    for (let i = 0; i < ROUNDS; i++) {
      const b = await measure(bare, requests);
      const k = await measure(kernel, requests);
      log(
        `${name}, round ${i + 1}: bare ${fmt(b.rps)} req/s ${fmt(b.cpuMicrosPerRequest)} µs/req, kernel ${fmt(k.rps)} req/s ${fmt(k.cpuMicrosPerRequest)} µs/req, ratio ${fmt(k.rps / b.rps, 3)}`,
      );
      rounds.push({ bare: b, kernel: k });
    }
    const ratio = median(rounds.map((r) => r.kernel.rps / r.bare.rps));
    const overhead = median(rounds.map((r) => r.kernel.cpuMicrosPerRequest - r.bare.cpuMicrosPerRequest));
    const m = (side: 'bare' | 'kernel', key: 'rps' | 'p50' | 'p99' | 'cpuMicrosPerRequest') =>
      median(rounds.map((r) => r[side][key]));
    lines.push(
      `| ${name} | ${fmt(m('bare', 'rps'))} | ${fmt(m('bare', 'p50'), 2)} / ${fmt(m('bare', 'p99'), 2)} | ${fmt(m('bare', 'cpuMicrosPerRequest'))} | ${fmt(m('kernel', 'rps'))} | ${fmt(m('kernel', 'p50'), 2)} / ${fmt(m('kernel', 'p99'), 2)} | ${fmt(m('kernel', 'cpuMicrosPerRequest'))} | ${fmt(ratio, 3)}x | ${fmt(overhead)} |`,
    );
  }
  lines.push(
    '',
    "Figures are medians of the rounds. CPU µs/req is the server process's user+system CPU time over a load divided by its requests:",
    'on a machine shared with other work it moves far less than req/s, so compare it (and the ratios), not absolute req/s.',
  );
  console.log(lines.join('\n'));
} finally {
  await cleanup();
}
