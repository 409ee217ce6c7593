/**
 * `npm run bench:data-explain`: the plans PostgreSQL runs for the product's public reads. Seeds the
 * articles of bench:data (BENCH_ARTICLES, default 10,000) and BENCH_OTHER_CLASSES more classes
 * (default 0), captures the SQL one request of each shape sends (bench/lib/sql-capture.ts), and prints
 * `EXPLAIN (ANALYZE, BUFFERS)` of it twice: with a custom plan (the parameters known) and with the
 * generic plan a named prepared statement switches to after five executions
 * (`plan_cache_mode = force_generic_plan`). The baseline's statements are printed for comparison.
 * Then the PostgreSQL backend's CPU per execution of each statement (BENCH_SQL_RUNS, default 2,000).
 * BENCH_KEEP=1 keeps both servers up afterwards (their URLs are printed) for wrk or --cpu-prof runs.
 */
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { createTestDatabase, teardownTestDatabases } from '../test/helpers/database.ts';
import { startChild, type ChildServer } from './lib/children.ts';
import type { PreparedRequest } from './lib/load.ts';
import type { CapturedStatement } from './lib/sql-capture.ts';
import { seedBaselineTable } from './data/baseline-table.ts';
import { ProductApi } from './data/product-api.ts';
import { readScenarios, type ReadKey } from './data/scenarios.ts';
import { seedArticles, seedOtherClasses, settle } from './data/seed.ts';
import { SETTINGS } from './data/settings.ts';

const others = Number(process.env.BENCH_OTHER_CLASSES ?? 0);
// Linux's USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s.
const CLOCK_TICKS = 100;

async function capture(child: ChildServer<unknown>, baseUrl: string, r: PreparedRequest): Promise<CapturedStatement[]> {
  await child.ask('sql-capture:start');
  const res = await fetch(baseUrl + r.path, {
    method: r.method,
    headers: r.body ? { 'content-type': 'application/json' } : {},
    body: r.body,
  });
  await res.arrayBuffer();
  return (await child.ask<{ statements: CapturedStatement[] }>('sql-capture:stop')).statements;
}

async function explain(dbUrl: string, s: CapturedStatement): Promise<string> {
  const out: string[] = [];
  for (const mode of ['force_custom_plan', 'force_generic_plan']) {
    // A fresh connection per mode: the prepared statement is planned under that mode.
    const client = new pg.Client({ connectionString: dbUrl });
    await client.connect();
    try {
      await client.query(`SET plan_cache_mode = ${mode}`);
      await client.query({ name: 'explained', text: s.text, values: s.values }); // prepares it
      // Warm-up executions so the timings are not the first touch of the pages.
      for (let i = 0; i < 3; i++) await client.query({ name: 'explained', text: s.text, values: s.values });
      const params = s.values.map((v) =>
        v === null ? 'null' : `'${String(typeof v === 'object' ? JSON.stringify(v) : v).replace(/'/g, "''")}'`,
      );
      const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE explained(${params.join(', ')})`);
      out.push(`--- ${mode}`, ...rows.map((r) => r['QUERY PLAN'] as string));
    } finally {
      await client.end();
    }
  }
  return out.join('\n');
}

/**
 * CPU the PostgreSQL backend spends per execution of the statement (named prepared, one connection,
 * the captured values), read from /proc/<backend pid>/stat around BENCH_SQL_RUNS executions: the
 * database's share of a request, which EXPLAIN's timings leave out (protocol, projection, output).
 * Only where the server runs on this machine; otherwise says so.
 */
async function backendCpu(dbUrl: string, s: CapturedStatement): Promise<string> {
  const runs = Number(process.env.BENCH_SQL_RUNS ?? 2000);
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid;
    const cpuMicros = async () => {
      const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
      return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / CLOCK_TICKS;
    };
    try {
      await cpuMicros();
    } catch {
      return '--- backend CPU: not measurable (the server does not run on this machine)';
    }
    const query = { name: 'measured', text: s.text, values: s.values };
    for (let i = 0; i < 200; i++) await client.query(query);
    const before = await cpuMicros();
    const started = performance.now();
    for (let i = 0; i < runs; i++) await client.query(query);
    const wall = ((performance.now() - started) * 1000) / runs;
    return `--- backend CPU per execution: ${(((await cpuMicros()) - before) / runs).toFixed(0)} µs (wall ${wall.toFixed(0)} µs; ${runs} runs)`;
  } finally {
    await client.end();
  }
}

async function main() {
  const productDb = await createTestDatabase();
  const baselineDb = await createTestDatabase({ fresh: true });
  const product = await startChild<{ port: number; cookie: string }>('product-server.ts', {
    BENCH_DATABASE_URL: productDb.url,
    NODE_ENV: 'production',
    BENCH_READ_CACHE_BYTES: '0',
  });
  const api = new ProductApi(`http://127.0.0.1:${product.info.port}`, product.info.cookie);
  const seeded = await seedArticles(api, SETTINGS.articles, SETTINGS.bulkSize);
  await seedBaselineTable(baselineDb.url, seeded.articles, seeded.ids);
  if (others > 0) await seedOtherClasses(api, others, SETTINGS.objectsPerOtherClass);
  await settle(productDb.url);
  const baseline = await startChild<{ port: number }>('baseline-server.ts', {
    BENCH_BASELINE_DATABASE_URL: baselineDb.url,
    NODE_ENV: 'production',
  });
  const shapes = readScenarios(seeded);
  for (const key of (process.env.BENCH_SHAPES?.split(',') ?? Object.keys(shapes)) as ReadKey[]) {
    for (const [side, child, url, dbUrl] of [
      ['product', product, api.baseUrl, productDb.url],
      ['baseline', baseline, `http://127.0.0.1:${baseline.info.port}`, baselineDb.url],
    ] as const) {
      const request = shapes[key][side][0];
      const statements = await capture(child, url, request);
      for (const s of statements) {
        console.log(
          `\n===== ${key} / ${side}: ${request.method} ${request.path} ${request.body ?? ''}\n${s.text}\n-- values ${JSON.stringify(s.values)}`,
        );
        if (/^\s*select/i.test(s.text)) console.log(`${await explain(dbUrl, s)}\n${await backendCpu(dbUrl, s)}`);
      }
    }
  }
  if (process.env.BENCH_KEEP === '1') {
    console.log(
      `\nproduct http://127.0.0.1:${product.info.port} baseline http://127.0.0.1:${baseline.info.port} db ${productDb.url}; Ctrl-C to stop`,
    );
    await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
  }
  await product.stop();
  await baseline.stop();
  await productDb.close();
  await baselineDb.close();
  await teardownTestDatabases();
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
