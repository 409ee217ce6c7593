/**
 * Structured data at scale (`npm run bench:data`): the product's public data API against the natural
 * bare implementation, measured only through HTTP so it keeps working whatever the storage layout is.
 *
 * - Product: a child process (bench/lib/product-server.ts) running the kernel with the data plugin,
 *   NODE_ENV=production, PUBLIC_DATA_RATE_LIMIT_PER_MINUTE=1000000, a pool of 10.
 * - Baseline: a child process (bench/lib/baseline-server.ts), Fastify 5 + pg (pool of 10) over a plain
 *   table `bench_articles` with btree indexes, `pool.query({ text, values })`, rows sent as JSON.
 *   Its own database on the same PostgreSQL server.
 * - Data: BENCH_ARTICLES articles (title, slug, body; 80% published) created through the product's
 *   bulk API and batch publish, the same rows (same ids) in the baseline's table.
 * - Reads (public get by id, list of 20 by title, slug filter; bench/data/scenarios.ts) with wrk
 *   (`-t1`, 32 connections, `--latency`, a Lua script replaying per-request ids, titles, slugs and
 *   bodies; autocannon when wrk is missing), first with the article class alone, then again after
 *   BENCH_OTHER_CLASSES classes of ten indexed fields with BENCH_OBJECTS_PER_CLASS objects each were
 *   created through POST /data-classes and bulk create.
 * - The 1-class reads again with working copies (`PATCH ?draft=true`) of a share of the published
 *   articles present (BENCH_WORKING_COPIES, default 0.5), alternating with runs without them (put
 *   aside in one SQL statement): without, with, without, with, each side's two runs averaged.
 * - Cached reads, reported apart, on a second product process with the public read cache on (the
 *   first runs with PUBLIC_DATA_READ_CACHE_BYTES=0): conditional GET with the ETag of a first GET,
 *   a warm cache over 1,000 ids, one id over and over.
 * - Writes at that size: single creates, bulk creates of 500, and adding a field to a class of
 *   BENCH_BIG_OBJECTS objects (seeded through bulk create by BENCH_SEED_CALLERS concurrent callers)
 *   while public reads of that class run.
 * - Planning time per public query shape: the SQL each server ran for one request is captured in the
 *   child at the driver (`pg.Client#query`, bench/lib/sql-capture.ts) and explained with
 *   `EXPLAIN (SUMMARY)` on the same database (bench/data/planning.ts says why not pg_stat_statements).
 *
 * Prints a markdown report to stdout and writes it to bench/results/data-<date>.md (git-ignored);
 * progress goes to stderr. Databases are dropped and children stopped at the end, on error and on
 * Ctrl-C.
 *
 * Environment: BENCH_SECONDS (per measured load, default 10), BENCH_WARMUP_SECONDS (default 3),
 * BENCH_ARTICLES (10000), BENCH_OTHER_CLASSES (199), BENCH_OBJECTS_PER_CLASS (200),
 * BENCH_BIG_OBJECTS (1000000), BENCH_SEED_CALLERS (3), BENCH_STRICT=1 (exit 1 when a target is
 * missed), TEST_DATABASE_URL (a server to create the temporary databases on; otherwise an embedded
 * cluster is started), BENCH_CHILD_NODE_ARGS (extra node flags for both servers, e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from '../test/helpers/database.ts';
import { benchRun } from './lib/run.ts';
import { startChild, type ChildServer } from './lib/children.ts';
import { loadToolName } from './lib/load.ts';
import { seedBaselineTable } from './data/baseline-table.ts';
import { capturePlanning, type Planning } from './data/planning.ts';
import { ProductApi } from './data/product-api.ts';
import { cachedScenarios, meanReads, measureReads, type Servers } from './data/reads.ts';
import { renderReport, type Report } from './data/report.ts';
import { checkSameArticles, publishedIds, readScenarios, type ReadKey, type ReadScenario } from './data/scenarios.ts';
import {
  seedArticles,
  seedBigClass,
  seedOtherClasses,
  settle,
  toggleWorkingCopies,
  workingCopies,
} from './data/seed.ts';
import { SETTINGS } from './data/settings.ts';
import { addFieldUnderLoad, bulkCreates, singleCreates } from './data/writes.ts';

const log = (...args: unknown[]) => console.error('[bench:data]', ...args);
const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 1 });

let interrupted = false;
const { children, databases, cleanup } = benchRun((signal) => {
  interrupted = true;
  log(`${signal}: stopping the servers and dropping the databases`);
});

type Shapes = Record<ReadKey, ReadScenario>;

async function planningOf(
  child: ChildServer<unknown>,
  url: string,
  dbUrl: string,
  shapes: Shapes,
  side: 'product' | 'baseline',
): Promise<Record<ReadKey, Planning>> {
  const out = {} as Record<ReadKey, Planning>;
  for (const key of Object.keys(shapes) as ReadKey[])
    out[key] = await capturePlanning(child, url, dbUrl, shapes[key][side][0]);
  return out;
}

function commitLabel(): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${sha} + uncommitted changes` : sha;
  } catch {
    return 'unknown commit';
  }
}

async function main(): Promise<number> {
  const started = Date.now();
  const productDb = await createTestDatabase();
  databases.push(productDb);
  const baselineDb = await createTestDatabase({ fresh: true });
  databases.push(baselineDb);

  // Reads are measured without the public read cache (each one reaches PostgreSQL); cached reads on a
  // second product process over the same database with the cache on.
  const product = await startChild<{ port: number; cookie: string }>('product-server.ts', {
    BENCH_DATABASE_URL: productDb.url,
    NODE_ENV: 'production',
    BENCH_READ_CACHE_BYTES: '0',
  });
  children.push(product);
  const api = new ProductApi(`http://127.0.0.1:${product.info.port}`, product.info.cookie);

  log(`seeding ${fmt(SETTINGS.articles)} articles through the bulk API`);
  const seeded = await seedArticles(api, SETTINGS.articles, SETTINGS.bulkSize);
  await seedBaselineTable(baselineDb.url, seeded.articles, seeded.ids);
  await settle(productDb.url);
  const baseline = await startChild<{ port: number }>('baseline-server.ts', {
    BENCH_BASELINE_DATABASE_URL: baselineDb.url,
    NODE_ENV: 'production',
  });
  children.push(baseline);
  const servers: Servers = { productUrl: api.baseUrl, baselineUrl: `http://127.0.0.1:${baseline.info.port}` };

  const shapes = readScenarios(seeded);
  const warnings = await checkSameArticles(servers.productUrl, servers.baselineUrl, shapes);
  for (const w of warnings) log(`warning: ${w}`);
  const planning = async () => ({
    product: await planningOf(product, servers.productUrl, productDb.url, shapes, 'product'),
    baseline: await planningOf(baseline, servers.baselineUrl, baselineDb.url, shapes, 'baseline'),
  });

  const oneClass = await measureReads(servers, Object.values(shapes), '1 class');
  const planOne = await planning();

  // The same reads with working copies of part of the published articles present, alternating with
  // runs without them (put aside in one statement): without (the run above), with, without, with; each
  // side's two runs averaged. The copies are dropped before the next phase.
  let withCopies: Report['workingCopies'] = null;
  if (SETTINGS.workingCopies > 0) {
    const ids = publishedIds(seeded, Number.MAX_SAFE_INTEGER);
    const drafted = ids.filter((_, i) => i % Math.max(1, Math.round(1 / SETTINGS.workingCopies)) === 0);
    log(`working copies: ${fmt(drafted.length)} of ${fmt(ids.length)} published articles`);
    const seedSeconds = await workingCopies(api, drafted);
    await settle(productDb.url);
    const w1 = await measureReads(servers, Object.values(shapes), '1 class, with working copies');
    await toggleWorkingCopies(productDb.url, false);
    const n2 = await measureReads(servers, Object.values(shapes), '1 class, working copies put aside');
    await toggleWorkingCopies(productDb.url, true);
    const w2 = await measureReads(servers, Object.values(shapes), '1 class, with working copies again');
    await toggleWorkingCopies(productDb.url, false);
    withCopies = {
      count: drafted.length,
      published: ids.length,
      seedSeconds,
      without: meanReads(oneClass, n2),
      reads: meanReads(w1, w2),
    };
  }

  const classCount = SETTINGS.otherClasses + 1;
  log(
    `creating ${SETTINGS.otherClasses} more classes of 10 indexed fields, ${SETTINGS.objectsPerOtherClass} objects each`,
  );
  const otherSeconds = await seedOtherClasses(api, SETTINGS.otherClasses, SETTINGS.objectsPerOtherClass);
  const settleSeconds = await settle(productDb.url);
  const manyClasses = await measureReads(servers, Object.values(shapes), `${classCount} classes`);
  const planMany = await planning();
  const cachingProduct = await startChild<{ port: number; cookie: string }>('product-server.ts', {
    BENCH_DATABASE_URL: productDb.url,
    NODE_ENV: 'production',
  });
  children.push(cachingProduct);
  const cachingApi = new ProductApi(`http://127.0.0.1:${cachingProduct.info.port}`, cachingProduct.info.cookie);
  const cached = await measureReads(
    { ...servers, productUrl: cachingApi.baseUrl },
    await cachedScenarios(cachingApi, publishedIds(seeded, 1000)),
    `${classCount} classes, cached`,
  );
  await cachingProduct.stop();
  children.splice(children.indexOf(cachingProduct), 1);

  log(`writes: ${SETTINGS.singleCreates} single creates, ${SETTINGS.bulkCalls} bulk creates of ${SETTINGS.bulkSize}`);
  const single = await singleCreates(api, SETTINGS.singleCreates);
  const bulk = await bulkCreates(api, SETTINGS.bulkCalls, SETTINGS.bulkSize);
  let bigClass: Report['bigClass'] = null;
  if (SETTINGS.bigObjects > 0) {
    log(`seeding the big class: ${fmt(SETTINGS.bigObjects)} objects, ${SETTINGS.seedCallers} concurrent bulk callers`);
    const big = await seedBigClass(api, SETTINGS.bigObjects, SETTINGS.seedCallers, SETTINGS.bulkSize);
    const settleSeconds = await settle(productDb.url);
    bigClass = {
      objects: SETTINGS.bigObjects,
      seedSeconds: big.seconds,
      settleSeconds,
      addField: await addFieldUnderLoad(api, big, productDb.url),
    };
  }

  const report: Report = {
    header: [
      `## bench:data, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, commit ${commitLabel()}`,
      '',
      `Load: ${loadToolName()}, ${SETTINGS.connections} connections, ${SETTINGS.seconds} s per run after ${SETTINGS.warmupSeconds} s of warm-up; ` +
        `product and baseline on the same PostgreSQL, pools of 10. ${fmt(SETTINGS.articles)} articles (80% published).`,
      `Seeding through the API: articles ${fmt(seeded.seconds)} s; ${SETTINGS.otherClasses} classes with ${SETTINGS.objectsPerOtherClass} objects each ` +
        `${fmt(otherSeconds)} s (VACUUM ANALYZE ${fmt(settleSeconds)} s)` +
        (bigClass
          ? `; big class of ${fmt(bigClass.objects)} objects ${fmt(bigClass.seedSeconds)} s (${fmt(bigClass.objects / Math.max(bigClass.seedSeconds, 0.001))} objects/s, ` +
            `${SETTINGS.seedCallers} callers; VACUUM ANALYZE ${fmt(bigClass.settleSeconds)} s).`
          : '; no big class (BENCH_BIG_OBJECTS=0).'),
      'List = `POST /public/data-objects/query` (title gte x, orderBy title, 20); baseline = `WHERE published AND title >= $1 ORDER BY title LIMIT 20`.',
      ...warnings.map((w) => `Warning: ${w}`),
    ],
    oneClass,
    workingCopies: withCopies,
    manyClasses,
    cached,
    classCount,
    writes: { single, bulk, bulkSize: SETTINGS.bulkSize },
    bigClass,
    planning: (Object.keys(shapes) as ReadKey[]).map((key) => ({
      label: shapes[key].label,
      oneClass: planOne.product[key],
      manyClasses: planMany.product[key],
      baseline: planMany.baseline[key],
    })),
  };
  const { markdown, missed } = renderReport(report);
  console.log(markdown);
  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const file = `${dir}data-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')}.md`;
  writeFileSync(file, markdown);
  log(`report written to ${file}; finished in ${Math.round((Date.now() - started) / 1000)} s`);
  return missed.length > 0 && SETTINGS.strict ? 1 : 0;
}

main().then(
  async (code) => {
    await cleanup();
    process.exit(code);
  },
  async (err) => {
    // After Ctrl-C the run fails wherever it was; that error says nothing.
    if (!interrupted) console.error(err);
    await cleanup().catch((e) => console.error(e));
    process.exit(1);
  },
);
