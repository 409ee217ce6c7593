/**
 * The public page as HTML (`npm run bench:page-html`): what a browser at the live site's address
 * gets, the page in its layout (header with the website's menu, footer) and active theme.
 *
 * - Product: the content benchmark's child process (bench/content/product-server.ts), production
 *   mode, public rate limit raised.
 * - Data, through the API: one website, a default layout (a header holding a `menu` node, an aside,
 *   a footer), an active theme, BENCH_MENU_ENTRIES menu entries (two levels, linked to pages) and
 *   BENCH_PAGES published pages (bench/content/seed.ts `pageTree`, 8 nodes).
 * - Load: `GET /public/page/<root>/<path>` with `Accept: text/html` over the pages in turn, wrk
 *   `-t1 -c32 --latency` (autocannon without wrk), after a warm-up, and the same paths as JSON (the
 *   figure the HTML answer is compared with), in the order HTML, JSON, JSON, HTML, averaged.
 *
 * Environment: BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (3), BENCH_PAGES (100), BENCH_MENU_ENTRIES
 * (12), TEST_DATABASE_URL. The database is dropped and the child stopped at the end.
 */
import { createTestDatabase } from '../test/helpers/database.ts';
import { pageTree } from './content/seed.ts';
import { startChild } from './lib/children.ts';
import { loadToolName, runLoad, type LoadResult, type PreparedRequest } from './lib/load.ts';
import { benchRun } from './lib/run.ts';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const SECONDS = env('BENCH_SECONDS', 10);
const WARMUP = env('BENCH_WARMUP_SECONDS', 3);
const PAGES = env('BENCH_PAGES', 100);
const MENU_ENTRIES = env('BENCH_MENU_ENTRIES', 12);
const log = (...args: unknown[]) => console.error('[bench:page-html]', ...args);
const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });

const { children, databases, cleanup } = benchRun();

function mean(a: LoadResult, b: LoadResult): LoadResult {
  const avg = (x: number, y: number) => (x + y) / 2;
  return {
    ...a,
    rps: avg(a.rps, b.rps),
    p50: avg(a.p50, b.p50),
    p99: avg(a.p99, b.p99),
    requests: a.requests + b.requests,
    non2xx: a.non2xx + b.non2xx,
    errors: a.errors + b.errors,
  };
}

async function main(): Promise<void> {
  log(`load tool: ${loadToolName()}; ${PAGES} pages, ${MENU_ENTRIES} menu entries; ${SECONDS}s per load`);
  const db = await createTestDatabase();
  databases.push(db);
  const product = await startChild<{ port: number; cookie: string }>('../content/product-server.ts', {
    BENCH_DATABASE_URL: db.url,
    NODE_ENV: 'production',
  });
  children.push(product);
  const base = `http://127.0.0.1:${product.info.port}`;
  const headers = { cookie: product.info.cookie, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown, method = 'POST') => {
    const res = await fetch(base + path, { method, headers, body: JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: string };
  };

  const root = `html${process.pid}`;
  const site = await post('/cms-one/websites', { name: 'HTML bench', rootPath: `/${root}`, locales: ['en'] });
  await post(`/cms-one/websites/${site.id}/templates`, {
    name: 'Main',
    isDefault: true,
    regions: {
      header: { type: 'div', props: { className: 'top' }, children: [{ type: 'menu' }] },
      aside: { type: 'p', text: 'Opening hours: 9 to 5' },
      footer: { type: 'p', text: '© The bench company' },
    },
    slots: { body: { className: 'site-main' } },
  });
  const theme = await post(`/cms-one/websites/${site.id}/themes`, {
    name: 'Bench',
    colors: { text: '#222222', background: '#ffffff', primary: '#0050a0' },
    fonts: { body: 'Georgia, serif' },
    customStyles: '.top{display:flex;gap:1rem}\n.site-main{max-width:60rem;margin:auto}',
  });
  await post(`/cms-one/websites/${site.id}/theme`, { themeId: theme.id }, 'PUT');
  const paths: string[] = [];
  const pageIds: string[] = [];
  for (let i = 0; i < PAGES; i++) {
    const path = `/page-${i}`;
    const page = await post('/cms-one/pages', {
      websiteId: site.id,
      locale: 'en',
      path,
      title: `Page ${i}`,
      content: pageTree(i),
      published: true,
    });
    paths.push(path);
    pageIds.push(page.id);
  }
  let parent: string | null = null;
  for (let i = 0; i < MENU_ENTRIES; i++) {
    const top = i % 4 === 0;
    const entry = await post('/cms-one/website-paths', {
      websiteId: site.id,
      label: `Entry ${i}`,
      position: i,
      parentId: top ? null : parent,
      pageId: pageIds[i % pageIds.length],
    });
    if (top) parent = entry.id;
  }

  const html: PreparedRequest[] = paths.map((path) => ({
    method: 'GET',
    path: `/public/page/${root}${path}`,
    headers: { accept: 'text/html' },
  }));
  const json: PreparedRequest[] = paths.map((path) => ({ method: 'GET', path: `/public/page/${root}${path}` }));
  const sample = await fetch(base + html[0].path, { headers: html[0].headers });
  const sampleText = await sample.text();
  if (sample.status !== 200 || !sampleText.startsWith('<!DOCTYPE html>'))
    throw new Error(`HTML read: ${sample.status} ${sampleText.slice(0, 200)}`);
  log(`one answer: ${sampleText.length} bytes`);

  log('warm-up');
  await runLoad(base, html, { connections: 32, seconds: WARMUP });
  // HTML, JSON, JSON, HTML, each side's two runs averaged: on a shared machine the load drifts
  // between runs, and a fixed order would hand that drift to one side.
  log('measuring: HTML, JSON, JSON, HTML');
  const load = (requests: PreparedRequest[]) => runLoad(base, requests, { connections: 32, seconds: SECONDS });
  const h1 = await load(html);
  const j1 = await load(json);
  const j2 = await load(json);
  const h2 = await load(html);
  const htmlLoad = mean(h1, h2);
  const jsonLoad = mean(j1, j2);
  const row = (name: string, r: LoadResult) =>
    `| ${name} | ${fmt(r.rps)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.non2xx} | ${r.errors} |`;
  console.log(
    [
      `# bench:page-html (${new Date().toISOString()})`,
      '',
      `${PAGES} pages, ${MENU_ENTRIES} menu entries; ${loadToolName()}, 32 connections, ${SECONDS}s per load, two loads per side (ABBA) averaged; one HTML answer ${sampleText.length} bytes.`,
      '',
      '| public page | req/s | p50 ms | p99 ms | non-2xx | errors |',
      '|---|---|---|---|---|---|',
      row('HTML (Accept: text/html)', htmlLoad),
      row('JSON', jsonLoad),
      '',
    ].join('\n'),
  );
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => cleanup());
