/**
 * Data benchmark (`npm run bench:data`): the product's public read paths and bulk create against a
 * bare Fastify + pg baseline running the same SQL on the same 100,000 objects.
 *
 * Environment: BENCH_SECONDS (per measured read, default 15), BENCH_WARMUP_SECONDS (default 3),
 * BENCH_OBJECTS (default 100000), TEST_DATABASE_URL (a server to create the temporary database on;
 * otherwise an embedded cluster is started), BENCH_STRICT=1 (exit 1 when a target is missed),
 * BENCH_CHILD_NODE_ARGS (extra node flags for both servers, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import { deepStrictEqual } from 'node:assert';
import { performance } from 'node:perf_hooks';
import { listFieldIndexes } from '../plugins/data/store/field-index-store.ts';
import { createTestDatabase, teardownTestDatabases } from '../test/helpers/database.ts';
import { startChild, type ChildServer } from './lib/children.ts';
import { measure, percentile, type LoadRequest, type LoadResult } from './lib/load.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 100_000);
const CONNECTIONS = 32;
const BULK_SIZE = 500;
const BULK_CALLS = 20;
const CATEGORIES = 10;
const CLASS_NAME = 'BenchProduct';
const TARGETS = { ratio: 0.7, readP99Ms: 15, bulkP99Ms: 300 };

const FIELDS = [
  { name: 'title', type: 'text', required: true },
  { name: 'category', type: 'select', options: Array.from({ length: CATEGORIES }, (_, i) => `c${i}`) },
  { name: 'price', type: 'number' },
  { name: 'rank', type: 'number' },
  { name: 'sku', type: 'text', unique: true },
];

const log = (...args: unknown[]) => console.error('[bench:data]', ...args);

async function api(base: string, cookie: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(base + path, {
    method,
    headers: { cookie, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: await res.json().catch(() => null) };
}

interface Scenario {
  name: string;
  request: LoadRequest;
}

function scenarios(ids: readonly string[]): Scenario[] {
  const category = (n: number) => `c${n % CATEGORIES}`;
  return [
    {
      name: 'public get by id',
      request: { method: 'GET', build: (n) => ({ path: `/public/data-objects/${ids[n % ids.length]}` }) },
    },
    {
      name: 'public list: 20, 1 filter, sorted',
      request: { method: 'GET', build: (n) => ({ path: `/public/data-objects?className=${CLASS_NAME}&category=${category(n)}&limit=20` }) },
    },
    {
      name: 'public query: 2 filters, sorted',
      request: {
        method: 'POST',
        build: (n) => ({
          path: '/public/data-objects/query',
          body: {
            className: CLASS_NAME,
            filters: [
              { field: 'category', op: 'eq', value: category(n) },
              { field: 'price', op: 'lt', value: 100 + (n % 50) * 10 },
            ],
            orderBy: [{ field: 'price', direction: 'asc' }],
            limit: 20,
          },
        }),
      },
    },
  ];
}

/** 100,000 published objects in one statement, with the unique values the product would have claimed. */
async function seed(db: Awaited<ReturnType<typeof createTestDatabase>>['db'], classId: string): Promise<void> {
  await db.raw(
    `insert into data_objects (id, class_id, translation_group_id, locale, path, published, attributes, created_at, updated_at)
     select g.id, ?, g.id, 'en', '/' || g.id, true,
            jsonb_build_object('title', 'Product ' || n, 'category', 'c' || (n % ?), 'price', ((n * 7919) % 100000) / 100.0,
                               'rank', n % 1000, 'sku', 'SKU-' || n),
            now() - make_interval(secs => n), now() - make_interval(secs => n)
       from (select gen_random_uuid() as id, n from generate_series(1, ?) n) g`,
    [classId, CATEGORIES, OBJECTS],
  );
  await db.raw(
    `insert into data_unique_values (class_id, field, scope, value, translation_group_id)
     select class_id, 'sku', '', attributes ->> 'sku', translation_group_id from data_objects where class_id = ?`,
    [classId],
  );
  // What autovacuum does after a bulk load: statistics, and a visibility map for index-only scans.
  await db.raw('vacuum analyze data_objects');
  await db.raw('vacuum analyze data_unique_values');
}

/** Both servers must answer the same body for the same request, or the comparison means nothing. */
async function checkSameAnswers(productUrl: string, baselineUrl: string, list: Scenario[]): Promise<void> {
  for (const s of list) {
    const req = s.request.build(3);
    const get = async (base: string) => {
      const res = await fetch(base + req.path, {
        method: s.request.method,
        headers: req.body !== undefined ? { 'content-type': 'application/json' } : {},
        body: req.body !== undefined ? JSON.stringify(req.body) : undefined,
      });
      if (res.status !== 200) throw new Error(`${s.name}: ${base} answered ${res.status}: ${await res.text()}`);
      return res.json();
    };
    deepStrictEqual(await get(baselineUrl), await get(productUrl), `${s.name}: product and baseline answer differently`);
  }
}

async function bulkLatencies(base: string, cookie: string): Promise<number[]> {
  const call = async (round: number) => {
    const objects = Array.from({ length: BULK_SIZE }, (_, i) => ({
      attributes: { title: `Bulk ${round}-${i}`, category: `c${i % CATEGORIES}`, price: i, rank: i % 100, sku: `BULK-${round}-${i}` },
    }));
    const started = performance.now();
    const res = await api(base, cookie, 'POST', '/data-objects/bulk', { className: CLASS_NAME, objects });
    const ms = performance.now() - started;
    const created = (res.json as { created?: unknown[] } | null)?.created?.length;
    if (res.status !== 200 && res.status !== 201) throw new Error(`bulk answered ${res.status}: ${JSON.stringify(res.json)}`);
    if (created !== BULK_SIZE) throw new Error(`bulk created ${created} of ${BULK_SIZE}: ${JSON.stringify(res.json).slice(0, 500)}`);
    return ms;
  };
  for (let w = 0; w < 2; w++) await call(-1 - w);
  const out: number[] = [];
  for (let round = 0; round < BULK_CALLS; round++) out.push(await call(round));
  return out;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function printTable(rows: Array<{ name: string; product: LoadResult; baseline?: LoadResult }>, bulk: number[]): string[] {
  const header = ['scenario', 'product req/s', 'p50 ms', 'p99 ms', 'baseline req/s', 'p50 ms', 'p99 ms', 'ratio'];
  const lines: string[][] = rows.map((r) => [
    r.name,
    fmt(r.product.rps),
    fmt(r.product.p50, 1),
    fmt(r.product.p99, 1),
    r.baseline ? fmt(r.baseline.rps) : '-',
    r.baseline ? fmt(r.baseline.p50, 1) : '-',
    r.baseline ? fmt(r.baseline.p99, 1) : '-',
    r.baseline ? fmt(r.product.rps / r.baseline.rps, 2) : '-',
  ]);
  lines.push([`bulk create ${BULK_SIZE} (${BULK_CALLS} sequential calls)`, '-', fmt(percentile(bulk, 50), 1), fmt(percentile(bulk, 99), 1), '-', '-', '-', '-']);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const row = (cells: string[]) => '| ' + cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ') + ' |';
  console.log(row(header));
  console.log('|' + widths.map((w, i) => (i === 0 ? ':' : '') + '-'.repeat(w + 1) + (i === 0 ? '' : ':')).join('|') + '|');
  for (const l of lines) console.log(row(l));

  const misses: string[] = [];
  for (const r of rows) {
    if (r.baseline && r.product.rps / r.baseline.rps < TARGETS.ratio) misses.push(`${r.name}: ratio ${fmt(r.product.rps / r.baseline.rps, 2)} < ${TARGETS.ratio}`);
    if (r.product.p99 >= TARGETS.readP99Ms) misses.push(`${r.name}: p99 ${r.product.p99} ms >= ${TARGETS.readP99Ms} ms`);
    if (r.product.non2xx || r.product.errors) misses.push(`${r.name}: ${r.product.non2xx} non-2xx answers, ${r.product.errors} errors`);
  }
  if (percentile(bulk, 99) >= TARGETS.bulkP99Ms) misses.push(`bulk create: p99 ${fmt(percentile(bulk, 99), 1)} ms >= ${TARGETS.bulkP99Ms} ms`);
  console.log(misses.length ? `\nTargets missed:\n- ${misses.join('\n- ')}` : '\nAll targets met (reads >= 0.7 of baseline and p99 < 15 ms; bulk 500 p99 < 300 ms).');
  return misses;
}

async function main(): Promise<number> {
  const started = Date.now();
  const database = await createTestDatabase();
  const children: Array<ChildServer<unknown>> = [];
  let cleaned: Promise<void> | undefined;
  const cleanup = () =>
    (cleaned ??= (async () => {
      for (const child of children.reverse()) await child.stop();
      await database.close();
      await teardownTestDatabases();
    })());
  // Ctrl-C still drops the temporary database.
  process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));
  try {
    const product = await startChild<{ port: number; cookie: string }>('product-server.ts', { BENCH_DATABASE_URL: database.url });
    children.push(product);
    const productUrl = `http://127.0.0.1:${product.info.port}`;
    const { cookie } = product.info;

    const created = await api(productUrl, cookie, 'POST', '/data-classes', { name: CLASS_NAME, label: 'Bench product', fields: FIELDS });
    if (created.status !== 201) throw new Error(`class create answered ${created.status}: ${JSON.stringify(created.json)}`);
    const classId = (created.json as { id: string }).id;
    log(`class ${CLASS_NAME} created through the API; field indexes: ${(await listFieldIndexes(database.db, classId)).length}`);

    const seedStart = Date.now();
    await seed(database.db, classId);
    log(`seeded ${fmt(OBJECTS)} published objects in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);
    const ids: string[] = (await database.db.raw('select id from data_objects where class_id = ? order by random() limit 20000', [classId])).rows.map(
      (r: { id: string }) => r.id,
    );

    const baseline = await startChild<{ port: number }>('baseline-server.ts', {
      BENCH_DATABASE_URL: database.url,
      BENCH_CLASS_ID: classId,
      BENCH_CLASS_NAME: CLASS_NAME,
    });
    children.push(baseline);
    const baselineUrl = `http://127.0.0.1:${baseline.info.port}`;

    const list = scenarios(ids);
    await checkSameAnswers(productUrl, baselineUrl, list);
    log('product and baseline answer the same bodies');

    const results: Array<{ name: string; product: LoadResult; baseline: LoadResult }> = [];
    for (const s of list) {
      log(`${s.name}: warm-up ${WARMUP_SECONDS} s each, then ${SECONDS} s each at ${CONNECTIONS} connections`);
      await measure(productUrl, s.request, { connections: CONNECTIONS, seconds: WARMUP_SECONDS });
      await measure(baselineUrl, s.request, { connections: CONNECTIONS, seconds: WARMUP_SECONDS });
      const productResult = await measure(productUrl, s.request, { connections: CONNECTIONS, seconds: SECONDS });
      const baselineResult = await measure(baselineUrl, s.request, { connections: CONNECTIONS, seconds: SECONDS });
      results.push({ name: s.name, product: productResult, baseline: baselineResult });
    }

    log(`bulk create: ${BULK_CALLS} sequential calls of ${BULK_SIZE} (after 2 warm-up calls)`);
    const bulk = await bulkLatencies(productUrl, cookie);

    console.log(`\nData benchmark: ${fmt(OBJECTS)} objects, ${CONNECTIONS} connections, ${SECONDS} s per read scenario\n`);
    const misses = printTable(results, bulk);
    log(`finished in ${Math.round((Date.now() - started) / 1000)} s`);
    return misses.length > 0 && process.env.BENCH_STRICT === '1' ? 1 : 0;
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
