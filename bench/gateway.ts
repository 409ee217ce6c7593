/**
 * The client surface of the gateway (`npm run bench:gateway`), measured through HTTP:
 *
 * 1. Data reads: `GET /client/v1/data/<class>?limit=20` with key authentication against the public
 *    read of the same published objects (`GET /public/data-objects?className=<class>&limit=20`), in the
 *    same run and the same server process; the ratio of requests per second is printed (target >= 0.8x).
 * 2. Passthrough: `GET /client/v1/gateway/bench/items/<id>` against calling the local upstream directly,
 *    one connection each so the p50 is latency rather than queueing; the added p50 is printed
 *    (target < 1 ms), and the server's CPU time per passthrough request (from /proc), which a busy
 *    machine distorts far less than latency.
 *
 * The server is a child process (bench/gateway/server.ts) running the kernel with the data and
 * client-api plugins in production mode, and the gateway plugin whose real catalog serves the
 * passthrough (endpoint with an API key header, outbound policy with the upstream's host allowed,
 * DNS check and pinned address). The upstream is a bare node:http child (bench/gateway/upstream.ts).
 *
 * Environment: BENCH_SECONDS (per measured load, default 10), BENCH_WARMUP_SECONDS (default 2),
 * BENCH_CONNECTIONS (throughput loads, default 16), BENCH_ROUNDS (alternating public/client read rounds, default 3), BENCH_OBJECTS (published objects, default 200),
 * BENCH_REDIS_URL (count client rate limits in Redis instead of memory), TEST_DATABASE_URL.
 */
import { readFileSync } from 'node:fs';
import { migrationSets } from '../kernel/kernel.ts';
import { discoverPlugins } from '../kernel/loader.ts';
import { createTestDatabase, teardownTestDatabases } from '../test/helpers/database.ts';
import { startChild, type ChildServer } from './lib/children.ts';
import { loadToolName, runLoad, type LoadResult, type PreparedRequest } from './lib/load.ts';
import { stopWrk } from './lib/wrk.ts';

const log = (...args: unknown[]) => console.error('[bench:gateway]', ...args);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));

const children: Array<ChildServer<unknown>> = [];
const cleanup = async () => {
  stopWrk();
  for (const child of children.reverse()) await child.stop();
  await teardownTestDatabases();
};
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void cleanup().finally(() => process.exit(130)));

async function measured(
  name: string,
  base: string,
  requests: PreparedRequest[],
  connections: number,
): Promise<LoadResult> {
  if (WARMUP > 0) await runLoad(base, requests, { connections, seconds: WARMUP });
  const result = await runLoad(base, requests, { connections, seconds: SECONDS });
  log(
    `${name}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50.toFixed(3)} ms, p99 ${result.p99.toFixed(3)} ms, non-2xx ${result.non2xx}, errors ${result.errors}`,
  );
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${name}: ${result.non2xx} non-2xx answers and ${result.errors} socket errors`);
  return result;
}

/** CPU time (user + system) a process has used so far, in ms (clock ticks of 10 ms). */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

const ids = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1));

async function main(): Promise<void> {
  const all = await discoverPlugins();
  const database = await createTestDatabase({
    migrations: migrationSets(all.filter((p) => ['data', 'client-api', 'gateway'].includes(p.id))),
  });
  const upstream = await startChild<{ port: number }>('../gateway/upstream.ts', {});
  children.push(upstream);
  const upstreamUrl = `http://127.0.0.1:${upstream.info.port}`;
  log('seeding the product server');
  const server = await startChild<{ port: number; key: string; className: string; pid: number }>(
    '../gateway/server.ts',
    {
      BENCH_DATABASE_URL: database.url,
      BENCH_UPSTREAM_URL: upstreamUrl,
      ...(process.env.BENCH_REDIS_URL ? { BENCH_REDIS_URL: process.env.BENCH_REDIS_URL } : {}),
    },
    180_000,
  );
  children.push(server);
  const base = `http://127.0.0.1:${server.info.port}`;
  const { key, className } = server.info;
  const auth = { authorization: `Bearer ${key}` };

  // The two reads alternate over ROUNDS rounds (order swapped each round) and the median pair is
  // reported: on a shared 2-core machine one load alone can land on a slow or fast stretch.
  const publicRequest: PreparedRequest[] = [
    { method: 'GET', path: `/public/data-objects?className=${className}&limit=20` },
  ];
  const clientRequest: PreparedRequest[] = [
    { method: 'GET', path: `/client/v1/data/${className}?limit=20`, headers: auth },
  ];
  const pairs: Array<{ publicRead: LoadResult; clientRead: LoadResult; ratio: number }> = [];
  for (let round = 0; round < ROUNDS; round++) {
    const first = round % 2 === 0 ? 'public' : 'client';
    const a = await measured(
      `round ${round + 1} ${first} read`,
      base,
      first === 'public' ? publicRequest : clientRequest,
      CONNECTIONS,
    );
    const b = await measured(
      `round ${round + 1} ${first === 'public' ? 'client' : 'public'} read`,
      base,
      first === 'public' ? clientRequest : publicRequest,
      CONNECTIONS,
    );
    const [publicRead, clientRead] = first === 'public' ? [a, b] : [b, a];
    pairs.push({ publicRead, clientRead, ratio: clientRead.rps / publicRead.rps });
  }
  pairs.sort((x, y) => x.ratio - y.ratio);
  const { publicRead, clientRead } = pairs[Math.floor(pairs.length / 2)];
  const direct = await measured(
    'upstream direct',
    upstreamUrl,
    ids(100).map((id) => ({ method: 'GET' as const, path: `/items/${id}` })),
    1,
  );
  // The server's CPU per passthrough request moves far less with other work on the machine than its latency.
  const passthroughRequests = ids(100).map((id) => ({
    method: 'GET' as const,
    path: `/client/v1/gateway/bench/items/${id}`,
    headers: auth,
  }));
  if (WARMUP > 0) await runLoad(base, passthroughRequests, { connections: 1, seconds: WARMUP });
  const cpuBefore = cpuMs(server.info.pid);
  const passthrough = await runLoad(base, passthroughRequests, { connections: 1, seconds: SECONDS });
  const passthroughCpuUs = ((cpuMs(server.info.pid) - cpuBefore) * 1000) / Math.max(1, passthrough.requests);
  log(
    `passthrough: ${passthrough.rps.toFixed(0)} req/s, p50 ${passthrough.p50.toFixed(3)} ms, server CPU ${passthroughCpuUs.toFixed(0)} µs/req`,
  );
  if (passthrough.non2xx > 0 || passthrough.errors > 0)
    throw new Error(`passthrough: ${passthrough.non2xx} non-2xx answers and ${passthrough.errors} socket errors`);

  const ratio = clientRead.rps / publicRead.rps;
  const ratios = pairs.map((p) => p.ratio.toFixed(2)).join(', ');
  const added = passthrough.p50 - direct.p50;
  const lines = [
    `# Gateway client surface benchmark (${new Date().toISOString()})`,
    '',
    `Load tool: ${loadToolName()}; ${SECONDS} s per load after ${WARMUP} s warm-up; rate-limit store: ${process.env.BENCH_REDIS_URL ? 'redis' : 'database'}.`,
    `Reads: ${ROUNDS} alternating rounds, the round with the median ratio shown (ratios: ${ratios}).`,
    "Route catalog: the gateway plugin's own (endpoint credentials, outbound policy).",
    '',
    '| Scenario | Connections | Req/s | p50 ms | p99 ms |',
    '|---|---|---|---|---|',
    `| public read /public/data-objects (20 of ${className}) | ${CONNECTIONS} | ${publicRead.rps.toFixed(0)} | ${publicRead.p50.toFixed(3)} | ${publicRead.p99.toFixed(3)} |`,
    `| client read /client/v1/data (key) | ${CONNECTIONS} | ${clientRead.rps.toFixed(0)} | ${clientRead.p50.toFixed(3)} | ${clientRead.p99.toFixed(3)} |`,
    `| upstream direct | 1 | ${direct.rps.toFixed(0)} | ${direct.p50.toFixed(3)} | ${direct.p99.toFixed(3)} |`,
    `| passthrough /client/v1/gateway (key) | 1 | ${passthrough.rps.toFixed(0)} | ${passthrough.p50.toFixed(3)} | ${passthrough.p99.toFixed(3)} |`,
    '',
    `Client read / public read: ${ratio.toFixed(2)}x (target >= 0.8x) ${ratio >= 0.8 ? 'met' : 'MISSED'}`,
    `Passthrough added p50: ${added.toFixed(3)} ms (target < 1 ms) ${added < 1 ? 'met' : 'MISSED'}`,
    `Passthrough server CPU: ${passthroughCpuUs.toFixed(0)} µs per request (no target; compare before and after a change)`,
  ];
  console.log(lines.join('\n'));
}

main().then(cleanup, async (err) => {
  console.error(err);
  await cleanup();
  process.exitCode = 1;
});
