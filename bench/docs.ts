/**
 * Documentation sites (`npm run bench:docs`), the two figures in one run:
 *
 * - Cold build: BENCH_DOCS documents of about BENCH_DOC_KB KB each (headings, paragraphs, a list,
 *   a table, a code block, links to neighbours) uploaded through `POST /api/v1/dam/upload`; the
 *   product is then restarted (nothing built, no render cached) and the time to the tree, the
 *   public search index and the staff search index is taken, in that order. Target: all three under
 *   10 s.
 * - Public reads against a bare baseline: `GET /public/docs/:id/page/<path>` over BENCH_PAGES
 *   documents (render), and `GET /public/docs/:id/search-index` (search: the index a browser loads),
 *   each against bench/docs/baseline-server.ts (Fastify sending the same JSON texts from memory at
 *   the same paths). wrk `-t1 --latency` (autocannon without wrk), 32 connections for pages and 8
 *   for the index (each answer is megabytes), after a warm-up, in the order product, baseline,
 *   baseline, product, averaged. Target: pages at ≥ 0.8x the baseline.
 *
 * Environment: BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (3), BENCH_DOCS (1000), BENCH_DOC_KB (20),
 * BENCH_PAGES (100), TEST_DATABASE_URL. The database, data folder and children are removed at the end.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase } from '../test/helpers/database.ts';
import { startChild } from './lib/children.ts';
import { type LoadResult, loadToolName, type PreparedRequest, runLoad } from './lib/load.ts';
import { benchRun } from './lib/run.ts';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const SECONDS = env('BENCH_SECONDS', 10);
const WARMUP = env('BENCH_WARMUP_SECONDS', 3);
const DOCS = env('BENCH_DOCS', 1000);
const DOC_KB = env('BENCH_DOC_KB', 20);
const PAGES = Math.min(env('BENCH_PAGES', 100), DOCS);
const log = (...args: unknown[]) => console.error('[bench:docs]', ...args);
const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });

const { children, databases, cleanup } = benchRun();

const WORDS = 'install configure deploy module request answer schema folder library search index page'.split(' ');

/** Document `i` of the manual: about `DOC_KB` KB of Markdown under `section-<n>/doc-<i>.md`. */
function documentText(i: number): string {
  const parts = [`---\ntitle: Document ${i}\norder: ${i}\n---\n# Document ${i}\n`];
  let n = 0;
  while (parts.join('').length < DOC_KB * 1024) {
    const w = (k: number) => WORDS[(i * 7 + n * 3 + k) % WORDS.length];
    parts.push(
      `\n## Section ${n} about ${w(0)}\n\n${Array.from({ length: 40 }, (_, k) => w(k)).join(' ')} doc${i}term${n}.\n`,
      `\n- ${w(1)} and ${w(2)}\n- see [the next document](../section-${Math.floor(((i + 1) % DOCS) / 100)}/doc-${(i + 1) % DOCS}.md)\n`,
      `\n| key | value |\n|---|---|\n| ${w(3)} | ${n} |\n`,
      `\n\`\`\`js\nconst ${w(4)}${n} = require('${w(5)}');\nfunction run${n}(x) { return x * ${n}; }\n\`\`\`\n`,
    );
    n++;
  }
  return parts.join('');
}
const fileOf = (i: number) => `section-${Math.floor(i / 100)}/doc-${i}.md`;

type Measured = LoadResult & { cpuMicrosPerRequest: number };

function mean(a: Measured, b: Measured): Measured {
  const avg = (x: number, y: number) => (x + y) / 2;
  return {
    ...a,
    cpuMicrosPerRequest: avg(a.cpuMicrosPerRequest, b.cpuMicrosPerRequest),
    rps: avg(a.rps, b.rps),
    p50: avg(a.p50, b.p50),
    p99: avg(a.p99, b.p99),
    requests: a.requests + b.requests,
    non2xx: a.non2xx + b.non2xx,
    errors: a.errors + b.errors,
  };
}

async function main(): Promise<void> {
  log(
    `load average ${loadavg()
      .map((n) => n.toFixed(1))
      .join(', ')}; load tool: ${loadToolName()}; ${DOCS} documents of ~${DOC_KB} KB; ${SECONDS}s per load`,
  );
  const db = await createTestDatabase();
  databases.push(db);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-docs-'));
  const childEnv = { BENCH_DATABASE_URL: db.url, BENCH_DATA_DIR: dataDir, NODE_ENV: 'production' };
  try {
    let product = await startChild<{ port: number; cookie: string }>('../docs/product-server.ts', childEnv);
    children.push(product);
    let base = `http://127.0.0.1:${product.info.port}`;
    let cookie = product.info.cookie;

    const folder = `manual${process.pid}`;
    log(`uploading ${DOCS} documents`);
    const startedUpload = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < DOCS) {
          const i = next++;
          const file = fileOf(i);
          const form = new FormData();
          form.append('folder', `${folder}/${path.dirname(file)}`);
          form.append('overwrite', '1');
          form.append('file', new Blob([documentText(i)], { type: 'text/markdown' }), path.basename(file));
          const res = await fetch(`${base}/api/v1/dam/upload`, { method: 'POST', headers: { cookie }, body: form });
          if (res.status >= 300) throw new Error(`upload ${file}: ${res.status} ${await res.text()}`);
          await res.arrayBuffer();
        }
      }),
    );
    log(`uploaded in ${fmt((Date.now() - startedUpload) / 1000)} s`);
    const created = await fetch(`${base}/cms-one/websites`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Bench manual',
        rootPath: `/bdocs${process.pid}`,
        kind: 'documentation',
        settings: { docs: { sourceFolder: folder } },
      }),
    });
    if (created.status !== 201) throw new Error(`website: ${created.status} ${await created.text()}`);
    const siteId = ((await created.json()) as { id: string }).id;

    // Cold: a new process, nothing built or rendered yet.
    await product.stop();
    children.pop();
    product = await startChild<{ port: number; cookie: string }>('../docs/product-server.ts', childEnv);
    children.push(product);
    base = `http://127.0.0.1:${product.info.port}`;
    cookie = product.info.cookie;
    const timed = async (url: string, headers: Record<string, string> = {}) => {
      const t0 = performance.now();
      const res = await fetch(base + url, { headers });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${url}: ${res.status} ${body.slice(0, 200)}`);
      return { ms: performance.now() - t0, body, etag: res.headers.get('etag') ?? '' };
    };
    const tree = await timed(`/docs-sites/${siteId}/tree`, { cookie });
    const publicIndex = await timed(`/public/docs/${siteId}/search-index`);
    const staffIndex = await timed(`/docs-sites/${siteId}/search-index`, { cookie });
    const documents = (JSON.parse(tree.body) as { documents: unknown[] }).documents.length;
    if (documents !== DOCS) throw new Error(`the tree lists ${documents} documents, not ${DOCS}`);
    const cold = tree.ms + publicIndex.ms + staffIndex.ms;
    log(`cold: tree ${fmt(tree.ms)} ms, public index ${fmt(publicIndex.ms)} ms, staff index ${fmt(staffIndex.ms)} ms`);

    // The same JSON texts for the baseline.
    const paths = Array.from({ length: PAGES }, (_, k) => fileOf(Math.floor((k * DOCS) / PAGES)).replace(/\.md$/, ''));
    const pages: Record<string, string> = {};
    for (const p of paths) pages[p] = (await timed(`/public/docs/${siteId}/page/${p}`)).body;
    const bodiesFile = path.join(dataDir, 'bodies.json');
    writeFileSync(bodiesFile, JSON.stringify({ pages, index: { body: publicIndex.body, etag: publicIndex.etag } }));
    const baseline = await startChild<{ port: number }>('../docs/baseline-server.ts', {
      BENCH_DOCS_BODIES: bodiesFile,
    });
    children.push(baseline);
    const bare = `http://127.0.0.1:${baseline.info.port}`;
    const check = await fetch(`${bare}/public/docs/${siteId}/page/${paths[0]}`);
    if ((await check.text()) !== pages[paths[0]]) throw new Error('the baseline does not send the same page');

    const pageRequests: PreparedRequest[] = paths.map((p) => ({
      method: 'GET',
      path: `/public/docs/${siteId}/page/${p}`,
    }));
    const indexRequests: PreparedRequest[] = [{ method: 'GET', path: `/public/docs/${siteId}/search-index` }];
    const cpu = async (server: typeof baseline) => (await server.ask<{ micros: number }>('cpu')).micros;
    const abba = async (requests: PreparedRequest[], connections: number) => {
      // Each load with the server's own CPU time per request (load average aside).
      const load = async (url: string): Promise<Measured> => {
        const server = url === base ? product : baseline;
        const before = await cpu(server);
        const result = await runLoad(url, requests, { connections, seconds: SECONDS });
        return { ...result, cpuMicrosPerRequest: ((await cpu(server)) - before) / Math.max(1, result.requests) };
      };
      await runLoad(base, requests, { connections, seconds: WARMUP });
      await runLoad(bare, requests, { connections, seconds: WARMUP });
      const p1 = await load(base);
      const b1 = await load(bare);
      const b2 = await load(bare);
      const p2 = await load(base);
      return { product: mean(p1, p2), baseline: mean(b1, b2) };
    };
    log('measuring pages: product, baseline, baseline, product');
    const render = await abba(pageRequests, 32);
    log('measuring the search index: product, baseline, baseline, product');
    const search = await abba(indexRequests, 8);
    const row = (name: string, r: Measured) =>
      `| ${name} | ${fmt(r.rps)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.cpuMicrosPerRequest)} | ${r.non2xx} | ${r.errors} |`;
    // A refused or failed answer is not a page read: a load with any is no measurement of the target.
    const clean = (x: { product: Measured; baseline: Measured }) =>
      x.product.non2xx + x.product.errors + x.baseline.non2xx + x.baseline.errors === 0;
    const ratio = (x: { product: Measured; baseline: Measured }) => x.product.rps / x.baseline.rps;
    const pageTarget = !clean(render)
      ? 'missed: non-2xx answers or errors in the loads'
      : ratio(render) >= 0.8
        ? 'met'
        : 'missed';
    const extra = (x: { product: Measured; baseline: Measured }) =>
      x.product.cpuMicrosPerRequest - x.baseline.cpuMicrosPerRequest;
    console.log(
      [
        `# bench:docs (${new Date().toISOString()})`,
        '',
        `${DOCS} documents of ~${DOC_KB} KB; ${loadToolName()}, ${SECONDS}s per load, two loads per side (ABBA) averaged; one page answer ${pages[paths[0]].length} bytes, the public index ${publicIndex.body.length} bytes.`,
        '',
        '| cold, after a restart | ms |',
        '|---|---|',
        `| tree (${documents} documents) | ${fmt(tree.ms)} |`,
        `| public search index | ${fmt(publicIndex.ms)} |`,
        `| staff search index | ${fmt(staffIndex.ms)} |`,
        `| all three | ${fmt(cold)} (target < 10,000: ${cold < 10_000 ? 'met' : 'missed'}) |`,
        '',
        '| public read | req/s | p50 ms | p99 ms | server CPU µs per request | non-2xx | errors |',
        '|---|---|---|---|---|---|---|',
        row('page, product (32 connections)', render.product),
        row('page, bare Fastify from memory', render.baseline),
        row('search index, product (8 connections)', search.product),
        row('search index, bare Fastify from memory', search.baseline),
        '',
        `page: product / baseline ${fmt(ratio(render))}x (target ≥ 0.8x: ${pageTarget}); search index: ${fmt(ratio(search))}x; the product's extra CPU per page read ${fmt(extra(render))} µs (load average ${loadavg()
          .map((n) => n.toFixed(1))
          .join(', ')} at the end)`,
        '',
      ].join('\n'),
    );
  } finally {
    await cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => cleanup());
