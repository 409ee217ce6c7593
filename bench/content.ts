/**
 * Websites and pages (`npm run bench:content`): the public page read against the natural bare
 * implementation, the sitemap of every page, and a page save with its version snapshot.
 *
 * - Product: a child process (bench/content/product-server.ts), the kernel with the data and content
 *   plugins, NODE_ENV=production, public rate limit raised, pool of 10.
 * - Baseline: a child process (bench/content/baseline-server.ts), Fastify 5 + pg (pool of 10) over a
 *   plain pages table with a unique (site, locale, path) index; its own database on the same server.
 * - Data: 3 websites (created through the API) with 3 locales; BENCH_PAGES pages (default 10,000;
 *   each path in the three locales, all published) written straight into both databases.
 * - Reads: published pages by locale and path, wrk `-t1 -c32 --latency` replaying a list of 2,000
 *   paths on both servers (autocannon when wrk is missing), in the order product, baseline, baseline,
 *   product; each side's two runs averaged.
 * - Sitemap of every page: sequential GETs right after a page change (document built again) and
 *   conditional GETs with the ETag (304).
 * - The reads again once every page read has a working copy (`PATCH ?draft=true`), alternating with
 *   runs where the copies are put aside (one SQL statement), each product run next to a baseline run:
 *   with, without, with, without. The public read follows the live row only, so its ratio to the
 *   baseline beside it stays within 10%.
 * - Page PATCH changing the content (version snapshot, 10 kept): sequential, p50 and p99.
 *
 * Targets: public read >= 0.7x baseline and p99 < 15 ms at 32 connections; sitemap < 200 ms, 304 < 5 ms;
 * PATCH p50 < 15 ms. Environment: BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (3), BENCH_PAGES (10000),
 * BENCH_SAMPLES (200, sequential requests per latency figure), BENCH_STRICT=1 (exit 1 on a miss),
 * TEST_DATABASE_URL. Databases are dropped and children stopped at the end, on error and on Ctrl-C.
 */
import { performance } from 'node:perf_hooks';
import { createTestDatabase } from '../test/helpers/database.ts';
import { LOCALES, isPublished, pageTree, planPages, seedBaseline, seedProduct } from './content/seed.ts';
import { benchRun } from './lib/run.ts';
import { startChild } from './lib/children.ts';
import { loadToolName, runLoad, type LoadResult, type PreparedRequest } from './lib/load.ts';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const SECONDS = env('BENCH_SECONDS', 10);
const WARMUP = env('BENCH_WARMUP_SECONDS', 3);
const PAGES = env('BENCH_PAGES', 10_000);
const SAMPLES = env('BENCH_SAMPLES', 200);
const log = (...args: unknown[]) => console.error('[bench:content]', ...args);
const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });

const { children, databases, cleanup } = benchRun();

function mean(a: LoadResult, b: LoadResult): LoadResult {
  return {
    ...a,
    rps: (a.rps + b.rps) / 2,
    p50: (a.p50 + b.p50) / 2,
    p99: (a.p99 + b.p99) / 2,
    requests: a.requests + b.requests,
    non2xx: a.non2xx + b.non2xx,
    errors: a.errors + b.errors,
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function timed(n: number, once: (i: number) => Promise<void>): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await once(i);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

async function expectStatus(res: Response, status: number, what: string): Promise<Response> {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${await res.text()}`);
  return res;
}

async function main(): Promise<void> {
  log(`load tool: ${loadToolName()}; ${PAGES} pages; ${SECONDS}s per load`);
  const productDb = await createTestDatabase();
  databases.push(productDb);
  const baselineDb = await createTestDatabase({ fresh: true });
  databases.push(baselineDb);
  const product = await startChild<{ port: number; cookie: string }>('../content/product-server.ts', {
    BENCH_DATABASE_URL: productDb.url,
    NODE_ENV: 'production',
  });
  children.push(product);
  const productUrl = `http://127.0.0.1:${product.info.port}`;
  const admin = { cookie: product.info.cookie, 'content-type': 'application/json' };

  const roots = ['shop', 'docs', 'blog'].map((r) => `${r}${process.pid}`);
  const siteIds: string[] = [];
  for (const root of roots) {
    const res = await expectStatus(
      await fetch(`${productUrl}/cms-one/websites`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ name: root, rootPath: `/${root}`, locales: LOCALES }),
      }),
      201,
      'website',
    );
    siteIds.push(((await res.json()) as { id: string }).id);
  }
  const pages = planPages(PAGES, roots.length);
  log('seeding');
  await seedProduct(productDb.db, siteIds, pages);
  await seedBaseline(baselineDb.url, roots, pages);
  const baseline = await startChild<{ port: number }>('../content/baseline-server.ts', {
    BENCH_BASELINE_DATABASE_URL: baselineDb.url,
    NODE_ENV: 'production',
  });
  children.push(baseline);
  const baselineUrl = `http://127.0.0.1:${baseline.info.port}`;

  const readable = pages.filter((_, i) => isPublished(i));
  const picks = Array.from({ length: 2000 }, (_, i) => readable[(i * 7919) % readable.length]);
  const productReqs: PreparedRequest[] = picks.map((p) => ({
    method: 'GET',
    path: `/public/pages/${p.locale}/${roots[p.site]}${p.path}`,
  }));
  const baselineReqs: PreparedRequest[] = picks.map((p) => ({
    method: 'GET',
    path: `/pages/${p.locale}/${roots[p.site]}${p.path}`,
  }));
  await expectStatus(await fetch(productUrl + productReqs[0].path), 200, 'product read');
  await expectStatus(await fetch(baselineUrl + baselineReqs[0].path), 200, 'baseline read');

  log('reads: warm-up');
  await runLoad(productUrl, productReqs, { connections: 32, seconds: WARMUP });
  await runLoad(baselineUrl, baselineReqs, { connections: 32, seconds: WARMUP });
  // ABBA order, averaged: on a shared machine the load drifts between runs, and a fixed order would
  // hand that drift to one side.
  log('reads: measuring (product, baseline, baseline, product)');
  const p1 = await runLoad(productUrl, productReqs, { connections: 32, seconds: SECONDS });
  const b1 = await runLoad(baselineUrl, baselineReqs, { connections: 32, seconds: SECONDS });
  const b2 = await runLoad(baselineUrl, baselineReqs, { connections: 32, seconds: SECONDS });
  const p2 = await runLoad(productUrl, productReqs, { connections: 32, seconds: SECONDS });
  const productRead = mean(p1, p2);
  const baselineRead = mean(b1, b2);

  // The same reads again once every page read has a working copy (a publisher's `?draft=true` save of
  // new content): the public read keeps reading the live row, so it must not slow down.
  const drafted = [...new Set(picks.map((p) => p.id))];
  log(`working copies: saving one for each of the ${drafted.length} pages read`);
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < drafted.length) {
        const id = drafted[next++];
        await expectStatus(
          await fetch(`${productUrl}/cms-one/pages/${id}?draft=true`, {
            method: 'PATCH',
            headers: admin,
            body: JSON.stringify({ content: pageTree(2_000_000 + next) }),
          }),
          200,
          'working copy',
        );
      }
    }),
  );
  const copies = await productDb.db('content_drafts').count('* as n').first();
  // Runs with the copies and without them (put aside in one statement) alternate, each product run
  // next to a baseline run: with, without, with, without; each side's two runs averaged.
  const aside = async (present: boolean) => {
    await productDb.db.raw('CREATE TABLE IF NOT EXISTS bench_drafts_aside (LIKE content_drafts)');
    const [from, to] = present ? ['bench_drafts_aside', 'content_drafts'] : ['content_drafts', 'bench_drafts_aside'];
    await productDb.db.raw(`WITH moved AS (DELETE FROM ${from} RETURNING *) INSERT INTO ${to} SELECT * FROM moved`);
  };
  log(`reads with (${String(copies?.n)} working copies) and without them, alternating`);
  await runLoad(productUrl, productReqs, { connections: 32, seconds: WARMUP });
  const pair = async () => ({
    product: await runLoad(productUrl, productReqs, { connections: 32, seconds: SECONDS }),
    baseline: await runLoad(baselineUrl, baselineReqs, { connections: 32, seconds: SECONDS }),
  });
  const w1 = await pair();
  await aside(false);
  const n1 = await pair();
  await aside(true);
  const w2 = await pair();
  await aside(false);
  const n2 = await pair();
  const draftRead = mean(w1.product, w2.product);
  const draftBaseline = mean(w1.baseline, w2.baseline);
  const bareRead = mean(n1.product, n2.product);
  const bareBaseline = mean(n1.baseline, n2.baseline);
  const draftChange = draftRead.rps / draftBaseline.rps / (bareRead.rps / bareBaseline.rps) - 1;

  log('sitemap');
  const patchUrl = (id: string) => `${productUrl}/cms-one/pages/${id}`;
  // A title change before each GET makes a new validator, so every timed GET builds the document.
  const builds: number[] = [];
  for (let i = 0; i < Math.max(5, Math.floor(SAMPLES / 20)); i++) {
    await expectStatus(
      await fetch(patchUrl(readable[i].id), {
        method: 'PATCH',
        headers: admin,
        body: JSON.stringify({ title: `Changed ${i}` }),
      }),
      200,
      'patch',
    );
    const start = performance.now();
    await (await expectStatus(await fetch(`${productUrl}/public/sitemap.xml`), 200, 'sitemap')).text();
    builds.push(performance.now() - start);
  }
  builds.sort((a, b) => a - b);
  const sitemapBuilt = { p50: percentile(builds, 50), p99: percentile(builds, 99) };
  const first = await fetch(`${productUrl}/public/sitemap.xml`);
  const tag = first.headers.get('etag')!;
  const urls = ((await first.text()).match(/<loc>/g) ?? []).length;
  const sitemap304 = await timed(SAMPLES, async () => {
    const res = await fetch(`${productUrl}/public/sitemap.xml`, { headers: { 'if-none-match': tag } });
    await expectStatus(res, 304, 'sitemap 304');
    await res.arrayBuffer();
  });

  log('page PATCH with version snapshot');
  const patch = await timed(SAMPLES, async (i) => {
    const page = readable[(i * 31) % readable.length];
    await expectStatus(
      await fetch(patchUrl(page.id), {
        method: 'PATCH',
        headers: admin,
        body: JSON.stringify({ content: pageTree(1_000_000 + i) }),
      }),
      200,
      'patch content',
    );
  });

  const ratio = productRead.rps / baselineRead.rps;
  const mark = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  const row = (name: string, r: LoadResult) =>
    `| ${name} | ${fmt(r.rps)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.non2xx} | ${r.errors} |`;
  const checks = [
    [`public read ≥ 0.7x baseline (${fmt(ratio)}x)`, ratio >= 0.7],
    [`public read p99 < 15 ms (${fmt(productRead.p99)} ms)`, productRead.p99 < 15],
    [`sitemap of ${urls} URLs < 200 ms (p50 ${fmt(sitemapBuilt.p50)} ms)`, sitemapBuilt.p50 < 200],
    [`sitemap 304 < 5 ms (p50 ${fmt(sitemap304.p50)} ms)`, sitemap304.p50 < 5],
    [`page PATCH with snapshot p50 < 15 ms (${fmt(patch.p50)} ms)`, patch.p50 < 15],
    [
      `public read with working copies within 10% of without (ratio to baseline ${draftChange >= 0 ? '+' : ''}${fmt(draftChange * 100)}%)`,
      Math.abs(draftChange) <= 0.1,
    ],
  ] as const;
  const report = [
    `# bench:content (${new Date().toISOString()})`,
    '',
    `${PAGES} pages, 3 websites x 3 locales; ${loadToolName()}, 32 connections, ${SECONDS}s per load, two loads per side (ABBA) averaged.`,
    '',
    '| read by locale and path | req/s | p50 ms | p99 ms | non-2xx | errors |',
    '|---|---|---|---|---|---|',
    row('product', productRead),
    row('baseline (Fastify + pg)', baselineRead),
    row(`product, ${drafted.length} pages read with a working copy`, draftRead),
    row('baseline (Fastify + pg), run beside it', draftBaseline),
    row('product, the working copies put aside (alternating with the row above)', bareRead),
    row('baseline (Fastify + pg), run beside it', bareBaseline),
    '',
    '| sequential | p50 ms | p99 ms |',
    '|---|---|---|',
    `| sitemap.xml, built after a change | ${fmt(sitemapBuilt.p50)} | ${fmt(sitemapBuilt.p99)} |`,
    `| sitemap.xml, If-None-Match → 304 | ${fmt(sitemap304.p50)} | ${fmt(sitemap304.p99)} |`,
    `| page PATCH with version snapshot | ${fmt(patch.p50)} | ${fmt(patch.p99)} |`,
    '',
    ...checks.map(([what, ok]) => `- ${mark(ok)} ${what}`),
    '',
  ].join('\n');
  console.log(report);
  if (process.env.BENCH_STRICT === '1' && checks.some(([, ok]) => !ok)) process.exitCode = 1;
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => cleanup());
