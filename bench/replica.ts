/**
 * Public reads from a streaming replica (`npm run bench:replica`): the same public data reads answered
 * from the primary and from a hot standby of it, in one run, each beside the bare baseline on the same
 * server.
 *
 * - Servers: a throwaway primary and a standby cloned from it with `pg_basebackup -R`
 *   (test/helpers/streaming-replica.ts), both on this machine.
 * - Product: two child processes (bench/lib/product-server.ts, the data plugin, production mode, the
 *   public read cache off so every read reaches PostgreSQL): one without DATABASE_READ_URL (reads on
 *   the primary), one with it (reads on the standby).
 * - Baseline: bench/lib/baseline-server.ts (Fastify + pg over a plain table) on the primary, and on
 *   the standby.
 * - Data: BENCH_ARTICLES (default 2,000) articles through the bulk API; the baseline's table with the
 *   same rows; the standby is let replay all of it before any load.
 * - Loads: get by id and the list of 20 (bench/data/scenarios.ts) with wrk (1 thread, 32 connections),
 *   each side BENCH_WARMUP_SECONDS (default 2) then BENCH_SECONDS (default 5), primary then replica.
 *
 * The figures of one 2-core host say what the replica costs the product (a second pool, the same
 * statements), not what it buys: primary and standby share the cores with the load and the servers.
 * The gain needs the standby on its own machine. Prints a markdown table on stdout.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import pg from 'pg';
import { startStreamingPair, streamingPairMissing, type StreamingPair } from '../test/helpers/streaming-replica.ts';
import { seedBaselineTable } from './data/baseline-table.ts';
import { ProductApi } from './data/product-api.ts';
import { readScenarios, type ReadScenario } from './data/scenarios.ts';
import { seedArticles, settle } from './data/seed.ts';
import { startChild } from './lib/children.ts';
import { loadToolName, runLoad, type LoadResult, type PreparedRequest } from './lib/load.ts';
import { benchRun } from './lib/run.ts';

const log = (...args: unknown[]) => console.error('[bench:replica]', ...args);
const ARTICLES = Number(process.env.BENCH_ARTICLES ?? 2_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const CONNECTIONS = 32;

let pair: StreamingPair | undefined;
const { children, cleanup } = benchRun(() => void pair?.stop());

/** Waits until the standby has replayed everything the primary wrote so far. */
async function replayed(p: StreamingPair): Promise<void> {
  const ask = async (url: string, sql: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(sql)).rows[0];
    } finally {
      await client.end();
    }
  };
  const { lsn } = await ask(p.primaryUrl, 'SELECT pg_current_wal_insert_lsn()::text AS lsn');
  for (;;) {
    const { done } = await ask(p.standbyUrl, `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`);
    if (done) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function measure(baseUrl: string, requests: readonly PreparedRequest[]): Promise<LoadResult> {
  if (WARMUP > 0) await runLoad(baseUrl, requests, { connections: CONNECTIONS, seconds: WARMUP });
  return runLoad(baseUrl, requests, { connections: CONNECTIONS, seconds: SECONDS });
}

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  const missing = streamingPairMissing();
  if (missing) throw new Error(`bench:replica needs the PostgreSQL programs: ${missing}`);
  const loadBefore = load();
  log('starting a primary and its streaming standby');
  pair = await startStreamingPair();
  const onPrimary = await startChild<{ port: number; cookie: string }>('product-server.ts', {
    BENCH_DATABASE_URL: pair.primaryUrl,
    BENCH_READ_CACHE_BYTES: '0',
    NODE_ENV: 'production',
  });
  children.push(onPrimary);
  const api = new ProductApi(`http://127.0.0.1:${onPrimary.info.port}`, onPrimary.info.cookie);
  log(`seeding ${fmt(ARTICLES)} articles`);
  const seeded = await seedArticles(api, ARTICLES, 500);
  await seedBaselineTable(pair.primaryUrl, seeded.articles, seeded.ids);
  await settle(pair.primaryUrl);
  await replayed(pair);
  const onReplica = await startChild<{ port: number }>('product-server.ts', {
    BENCH_DATABASE_URL: pair.primaryUrl,
    BENCH_READ_URL: pair.standbyUrl,
    BENCH_READ_CACHE_BYTES: '0',
    NODE_ENV: 'production',
  });
  children.push(onReplica);
  const bareUrls: string[] = [];
  for (const url of [pair.primaryUrl, pair.standbyUrl]) {
    const bare = await startChild<{ port: number }>('baseline-server.ts', {
      BENCH_BASELINE_DATABASE_URL: url,
      NODE_ENV: 'production',
    });
    children.push(bare);
    bareUrls.push(`http://127.0.0.1:${bare.info.port}`);
  }
  const shapes = readScenarios(seeded);
  const scenarios: ReadScenario[] = [shapes.byId, shapes.list];
  const rows: string[] = [];
  for (const s of scenarios) {
    const figures: LoadResult[] = [];
    for (const [label, url, requests] of [
      ['bare, primary', bareUrls[0], s.baseline],
      ['product, primary', api.baseUrl, s.product],
      ['bare, replica', bareUrls[1], s.baseline],
      ['product, replica', `http://127.0.0.1:${onReplica.info.port}`, s.product],
    ] as const) {
      log(`${s.label}: ${label}`);
      const result = await measure(url, requests);
      if (result.non2xx + result.errors > 0)
        log(`warning: ${label}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      figures.push(result);
    }
    const [barePrimary, productPrimary, bareReplica, productReplica] = figures;
    rows.push(
      `| ${s.label} | ${fmt(barePrimary.rps)} | ${fmt(productPrimary.rps)} (${(productPrimary.rps / barePrimary.rps).toFixed(2)}x) | ${fmt(bareReplica.rps)} | ${fmt(productReplica.rps)} (${(productReplica.rps / bareReplica.rps).toFixed(2)}x) | ${(productReplica.rps / productPrimary.rps).toFixed(2)}x | ${productPrimary.p50.toFixed(2)} / ${productReplica.p50.toFixed(2)} |`,
    );
  }
  let commit = 'unknown commit';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {}
  console.log(`## bench:replica, ${new Date().toISOString().slice(0, 10)}, ${commit}`);
  console.log('');
  console.log(
    `${fmt(ARTICLES)} articles, read cache off, ${loadToolName()}, ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${SECONDS} s per side; ${os.cpus().length} cores, load average before ${loadBefore}, after ${load()}.`,
  );
  console.log('');
  console.log(
    '| Read | bare, primary (req/s) | product, primary (req/s, x bare) | bare, replica (req/s) | product, replica (req/s, x bare) | product replica / primary | product p50 ms primary / replica |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const row of rows) console.log(row);
}

try {
  await main();
} catch (err) {
  log('failed:', err);
  process.exitCode = 1;
} finally {
  await cleanup();
  await pair?.stop();
}
