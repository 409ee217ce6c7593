/**
 * Full-text search at 100,000 documents (`npm run bench:search`).
 *
 * - Data: BENCH_SEARCH_DOCUMENTS (100,000) documents written straight into `search_documents` with
 *   multi-row INSERTs (the generated tsvector is computed by PostgreSQL as for any write; the GIN index
 *   is built once after the rows): 90% English, 10% German, 70% pages of five websites and 30% objects, 80% public,
 *   titles of 3-8 words and bodies of 60-200 words drawn from a Zipf-Mandelbrot vocabulary of 30,000 words
 *   (bench/search/corpus.ts), then VACUUM ANALYZE.
 * - Load: a child process runs the product kernel (data + search plugins, production mode, pool of
 *   10); wrk (`-t1`, BENCH_CONNECTIONS connections, `--latency`; autocannon when wrk is missing)
 *   replays 500 different two-word queries (content words drawn from the same distribution) as
 *   `GET /public/search?q=<w1 w2>&locale=en&websiteId=site-<n>` for BENCH_SECONDS after
 *   BENCH_WARMUP_SECONDS of warm-up. Target: p50 < 20 ms, p99 < 60 ms.
 * - Database time: EXPLAIN (ANALYZE) of the statement the server runs, captured at its driver during
 *   one request of each of 100 of those queries (planning and execution time percentiles, and how
 *   many documents each query matches).
 *
 * Environment: BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (4),
 * BENCH_SEARCH_DOCUMENTS (100000), BENCH_STRICT=1 (exit 1 when a target is missed),
 * TEST_DATABASE_URL (a server for the temporary database; otherwise an embedded cluster is started).
 */
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import type { DatabaseHandle } from '../kernel/database.ts';
import { createTestDatabase } from '../test/helpers/database.ts';
import { benchRun } from './lib/run.ts';
import { startChild, type ChildServer } from './lib/children.ts';
import { loadToolName, runLoad, type PreparedRequest } from './lib/load.ts';
import { seededRandom } from './lib/random.ts';
import type { CapturedStatement } from './lib/sql-capture.ts';
import { STOP_WORDS, vocabulary, zipf } from './search/corpus.ts';

const log = (...args: unknown[]) => console.error('[bench:search]', ...args);
const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const SECONDS = num('BENCH_SECONDS', 10);
const WARMUP = num('BENCH_WARMUP_SECONDS', 2);
const CONNECTIONS = num('BENCH_CONNECTIONS', 4);
const DOCUMENTS = num('BENCH_SEARCH_DOCUMENTS', 100_000);
const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });

const run = benchRun();
const cleanup = run.cleanup;
let child: ChildServer<{ port: number }> | undefined;
let database: DatabaseHandle | undefined;

const random = seededRandom(42);
const words = vocabulary(30_000, random);
const draw = zipf(words.length, random);
// Query words: the same distribution without the stop words (a user types a stop word now and then,
// which the english configuration drops, leaving a one-word query: the cheaper case).
const drawQueryWord = zipf(words.length, random, STOP_WORDS);
const phrase = (min: number, max: number) =>
  Array.from({ length: min + Math.floor(random() * (max - min + 1)) }, () => words[draw()]).join(' ');

async function seed(db: DatabaseHandle['db']): Promise<number> {
  const started = Date.now();
  // One GIN build after the rows is several times faster than 100,000 index insertions; the index is
  // created again with the migration's definition.
  const gin: string = (await db.raw(`SELECT indexdef FROM pg_indexes WHERE indexname = 'search_documents_tsv'`)).rows[0]
    .indexdef;
  await db.raw('DROP INDEX search_documents_tsv');
  const batch = 1000;
  for (let i = 0; i < DOCUMENTS; i += batch) {
    const rows = Array.from({ length: Math.min(batch, DOCUMENTS - i) }, (_, j) => {
      const n = i + j;
      const page = n % 10 < 7;
      const german = n % 10 === 9;
      return {
        source_type: page ? 'page' : 'object',
        source_id: `doc-${n}`,
        website_id: page ? `site-${(n % 5) + 1}` : '',
        locale: german ? 'de' : 'en',
        config: german ? 'german' : 'english',
        title: phrase(3, 8),
        body: phrase(60, 200),
        url: page ? `/p/${n}` : null,
        public: n % 5 !== 0,
        meta: '{}',
        updated_at: new Date(),
      };
    });
    await db('search_documents').insert(rows);
    if ((i / batch) % 20 === 19) log(`${i + batch} documents`);
  }
  await db.raw(gin);
  await db.raw('VACUUM ANALYZE search_documents');
  return Date.now() - started;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/**
 * The statement the product runs for each query, captured at the driver in the server child
 * (bench/lib/sql-capture.ts) during one request, then explained with EXPLAIN ANALYZE and sent again
 * directly on the same database: the product's own SQL, never a copy of it.
 */
async function explain(base: string, dbUrl: string, requests: PreparedRequest[]) {
  const planning: number[] = [];
  const execution: number[] = [];
  const matches: number[] = [];
  const direct: number[] = [];
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    for (const request of requests) {
      let statements: CapturedStatement[];
      await child!.ask('sql-capture:start');
      try {
        await (await fetch(base + request.path)).arrayBuffer();
      } finally {
        statements = (await child!.ask<{ statements: CapturedStatement[] }>('sql-capture:stop')).statements;
      }
      const search = statements.find((st) => st.text.includes('ts_rank_cd'));
      if (!search) throw new Error(`${request.path} ran no search statement`);
      const plan = (
        await client.query({ text: `EXPLAIN (ANALYZE, FORMAT JSON) ${search.text}`, values: search.values })
      ).rows[0]['QUERY PLAN'][0];
      const t0 = performance.now();
      await client.query({ text: search.text, values: search.values });
      direct.push(performance.now() - t0);
      planning.push(plan['Planning Time']);
      execution.push(plan['Execution Time']);
      // The statement's first parameter is the normalised tsquery.
      const counted = await client.query({
        text: 'SELECT count(*) AS n FROM search_documents WHERE tsv @@ $1::tsquery',
        values: [search.values[0]],
      });
      matches.push(Number(counted.rows[0].n));
    }
  } finally {
    await client.end();
  }
  for (const list of [planning, execution, matches, direct]) list.sort((a, b) => a - b);
  return { planning, execution, matches, direct };
}

async function main(): Promise<number> {
  database = await createTestDatabase();
  run.databases.push(database);
  log(`seeding ${DOCUMENTS} documents`);
  const seedMs = await seed(database.db);
  const size = (
    await database.db.raw(
      `SELECT pg_size_pretty(pg_total_relation_size('search_documents')) AS t, pg_size_pretty(pg_relation_size('search_documents_tsv')) AS g`,
    )
  ).rows[0];
  log(`seeded in ${seedMs} ms; starting the server`);
  child = await startChild<{ port: number }>('../search/server.ts', { BENCH_DATABASE_URL: database.url });
  run.children.push(child);
  const base = `http://127.0.0.1:${child.info.port}`;

  const queries = Array.from({ length: 500 }, (_, i) => ({
    q: `${words[drawQueryWord()]} ${words[drawQueryWord()]}`,
    websiteId: `site-${(i % 5) + 1}`,
  }));
  const requests: PreparedRequest[] = queries.map(({ q, websiteId }) => ({
    method: 'GET',
    path: `/public/search?${new URLSearchParams({ q, locale: 'en', websiteId }).toString()}`,
  }));
  const probe = await fetch(base + requests[0].path);
  if (probe.status !== 200) throw new Error(`probe answered ${probe.status}: ${await probe.text()}`);
  const hits = ((await probe.json()) as { results: unknown[] }).results.length;
  log(`probe ${requests[0].path}: ${hits} results; warming up`);
  await runLoad(base, requests, { connections: CONNECTIONS, seconds: WARMUP });
  log(`measuring ${SECONDS} s with ${loadToolName()}, ${CONNECTIONS} connections`);
  const load = await runLoad(base, requests, { connections: CONNECTIONS, seconds: SECONDS });
  log(`measuring ${SECONDS} s with one connection (latency without queueing)`);
  const single = await runLoad(base, requests, { connections: 1, seconds: SECONDS });
  log(`measuring ${SECONDS} s of GET /health/live with one connection (the floor of any request now)`);
  const floor = await runLoad(base, [{ method: 'GET', path: '/health/live' }], { connections: 1, seconds: SECONDS });
  const floorDb = await runLoad(base, [{ method: 'GET', path: '/health' }], { connections: 1, seconds: SECONDS });
  log('EXPLAIN ANALYZE of 100 queries');
  const db = await explain(base, database.url, requests.slice(0, 100));

  const met = load.p50 < 20 && load.p99 < 60;
  console.log(`# Search benchmark (${new Date().toISOString()})

Documents: ${fmt(DOCUMENTS)} (table with indexes ${size.t}, GIN ${size.g}), seeded in ${fmt(seedMs / 1000)} s.
Load: ${loadToolName()}, ${CONNECTIONS} connections, ${SECONDS} s, 500 different two-word queries, public route with locale and website.

| measure | value |
|---|---|
| requests/s | ${fmt(load.rps)} |
| p50 latency (HTTP) | ${fmt(load.p50)} ms (target < 20) |
| p99 latency (HTTP) | ${fmt(load.p99)} ms (target < 60) |
| requests / non-2xx / errors | ${load.requests} / ${load.non2xx} / ${load.errors} |
| one connection: requests/s, p50, p99 | ${fmt(single.rps)}, ${fmt(single.p50)} ms, ${fmt(single.p99)} ms |
| floor: GET /health/live, one connection: requests/s, p50, p99 | ${fmt(floor.rps)}, ${fmt(floor.p50)} ms, ${fmt(floor.p99)} ms |
| floor with one database round trip: GET /health, one connection | ${fmt(floorDb.rps)}, ${fmt(floorDb.p50)} ms, ${fmt(floorDb.p99)} ms |
| the search statement sent directly (pg driver, sequential, 100 queries): p50 / p99 | ${fmt(percentile(db.direct, 50))} / ${fmt(percentile(db.direct, 99))} ms |
| database execution p50 / p99 / max (EXPLAIN ANALYZE, 100 queries) | ${fmt(percentile(db.execution, 50))} / ${fmt(percentile(db.execution, 99))} / ${fmt(db.execution[db.execution.length - 1])} ms |
| planning p50 / p99 | ${fmt(percentile(db.planning, 50))} / ${fmt(percentile(db.planning, 99))} ms |
| documents matched per query: p50 / p99 / max | ${fmt(percentile(db.matches, 50))} / ${fmt(percentile(db.matches, 99))} / ${fmt(db.matches[db.matches.length - 1])} |

Targets ${met ? 'met' : 'MISSED'} (HTTP p50 and p99 with ${CONNECTIONS} connections). Figures depend on the machine's load (load average now ${loadavg()[0].toFixed(1)} on ${cpus().length} cores): other processes on the same cores distort them.`);
  return met || process.env.BENCH_STRICT !== '1' ? 0 : 1;
}

main()
  .then(async (code) => {
    await cleanup();
    process.exit(code);
  })
  .catch(async (err) => {
    console.error(err);
    await cleanup();
    process.exit(1);
  });
