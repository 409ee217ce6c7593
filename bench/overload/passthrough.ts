import { readFileSync } from 'node:fs';
import { migrationSets } from '../../kernel/kernel.ts';
import { discoverPlugins } from '../../kernel/loader.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { startChild, type ChildServer } from '../lib/children.ts';
import { runLoad } from '../lib/load.ts';

const SECONDS = Number(process.env.OVERLOAD_PASSTHROUGH_SECONDS ?? 20);
const CONNECTIONS = Number(process.env.OVERLOAD_PASSTHROUGH_CONNECTIONS ?? 150);
const UPSTREAM_BYTES = Number(process.env.OVERLOAD_UPSTREAM_BYTES ?? 50 * 1024 * 1024);
const MEMORY_BUDGET_MB = 100;
const log = (...args: unknown[]) => console.error('[bench:overload passthrough]', ...args);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const rssMb = (pid: number) => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.replace(/\D+/g, '')) / 1024;
};

/**
 * The passthrough scenario: CONNECTIONS (150) connections call `/client/v1/gateway/big/file`, a
 * 50 MB upstream answer, for SECONDS with wrk (its own process; keys of OVERLOAD_CLIENTS clients in
 * turn), while this process asks `GET /health` every 250 ms (5 s timeout) and samples the server's
 * resident memory every 100 ms. Passes when the server sent no 5xx other than 503 with Retry-After
 * (counted at its socket), every health answer was 200, and the peak resident memory stayed within
 * 100 MB of the idle figure (taken after one warm-up call).
 */
export async function passthroughScenario(): Promise<boolean> {
  const children: Array<ChildServer<unknown>> = [];
  const all = await discoverPlugins();
  const database = await createTestDatabase({
    migrations: migrationSets(all.filter((p) => ['data', 'client-api', 'gateway', 'health'].includes(p.id))),
  });
  try {
    const upstream = await startChild<{ port: number }>('../overload/passthrough-upstream.ts', {});
    children.push(upstream);
    const server = await startChild<{ port: number; keys: string[]; pid: number }>(
      '../overload/passthrough-server.ts',
      { BENCH_DATABASE_URL: database.url, BENCH_UPSTREAM_URL: `http://127.0.0.1:${upstream.info.port}` },
      180_000,
    );
    children.push(server);
    const base = `http://127.0.0.1:${server.info.port}`;
    const { keys, pid } = server.info;
    const path = '/client/v1/gateway/big/file';

    const warm = await fetch(base + path, { headers: { authorization: `Bearer ${keys[0]}` } });
    const warmBytes = (await warm.arrayBuffer()).byteLength;
    if (warm.status !== 200 || warmBytes !== UPSTREAM_BYTES)
      throw new Error(`warm-up call answered ${warm.status} with ${warmBytes} bytes`);
    await sleep(2000);
    const idle = rssMb(pid);
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 100);

    const health: Array<{ status: number; ms: number }> = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const started = performance.now();
        const status = await fetch(`${base}/health`, { signal: AbortSignal.timeout(5000) }).then(
          async (res) => {
            await res.arrayBuffer();
            return res.status;
          },
          () => 0,
        );
        health.push({ status, ms: performance.now() - started });
        await sleep(250);
      }
    })();

    log(`${CONNECTIONS} connections for ${SECONDS} s against ${path} (${UPSTREAM_BYTES} bytes an answer)`);
    const load = await runLoad(
      base,
      keys.map((key) => ({ method: 'GET' as const, path, headers: { authorization: `Bearer ${key}` } })),
      // A 50 MB answer shared with 149 others takes long on a busy machine: only a stuck one is a timeout.
      { connections: CONNECTIONS, seconds: SECONDS, timeoutSeconds: 120 },
    );
    polling = false;
    await poller;
    clearInterval(sampler);
    const { statuses } = await server.ask<{ statuses: Record<string, number> }>('stats');

    const served = Object.entries(statuses).filter(([k]) => !k.startsWith('health'));
    const bad = served.filter(([k]) => /^5\d\d/.test(k) && !/^503( cut)? \+Retry-After$/.test(k));
    const healthBad = health.filter((h) => h.status !== 200);
    const growth = peak - idle;
    const delivered = (statuses['200'] ?? 0) * UPSTREAM_BYTES;
    const sortedHealth = health.map((h) => h.ms).sort((a, b) => a - b);
    const pct = (p: number) => sortedHealth[Math.min(sortedHealth.length - 1, Math.floor(p * sortedHealth.length))];

    console.log(
      `\n## Passthrough overload: ${CONNECTIONS} connections for ${SECONDS} s, ${keys.length} clients, a ${(UPSTREAM_BYTES / 1048576).toFixed(0)} MB upstream answer\n`,
    );
    console.log(
      '| answer (at the server; `cut`: closed before its end, by wrk when the load stopped) | count |\n|---|---|',
    );
    for (const [status, count] of served.sort()) console.log(`| ${status} | ${count} |`);
    console.log(`\n- load tool: ${load.tool}; requests completed ${load.requests}, socket errors ${load.errors}`);
    console.log(
      `- whole answers delivered: ${statuses['200'] ?? 0} (${(delivered / 1e9).toFixed(1)} GB, ${(delivered / 1e6 / SECONDS).toFixed(0)} MB/s)`,
    );
    console.log(
      `- GET /health: ${health.length} asked, ${healthBad.length} not 200 (${[...new Set(healthBad.map((h) => h.status))].join(', ') || 'none'}); p50 ${pct(0.5).toFixed(0)} ms, p99 ${pct(0.99).toFixed(0)} ms, max ${sortedHealth.at(-1)!.toFixed(0)} ms`,
    );
    console.log(
      `- resident memory: idle ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB: +${growth.toFixed(0)} MB (budget ${MEMORY_BUDGET_MB} MB) ${growth <= MEMORY_BUDGET_MB ? 'PASS' : 'MISS'}`,
    );
    console.log(
      `- 5xx other than 503 with Retry-After: ${bad.reduce((n, [, c]) => n + c, 0)}${bad.length ? ` (${bad.map(([k]) => k).join(', ')})` : ''}`,
    );
    return bad.length === 0 && healthBad.length === 0 && growth <= MEMORY_BUDGET_MB;
  } finally {
    for (const child of children.reverse()) await child.stop();
    await database.close();
  }
}
