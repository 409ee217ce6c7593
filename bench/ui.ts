/**
 * `npm run bench:ui`: the admin dashboard's first load in Chromium, from the product's own server
 * (the all-in-one kernel on a loopback port, the built app, embedded PostgreSQL or TEST_DATABASE_URL).
 *
 * For each of BENCH_UI_RUNS (5) fresh browser contexts (empty cache), it opens `/sign-in` and
 * measures the time from navigation to the sign-in form being interactive (the e-mail field editable
 * and the Sign in button enabled), and the bytes the browser received for JavaScript and CSS
 * (encoded, i.e. gzip as served). It also lists the build's chunks with their gzip size: the entry
 * chunk is what the first screen pays; every screen of every plugin is a chunk of its own.
 *
 * Then the objects list over BENCH_UI_OBJECTS (100,000) objects (bench/ui/objects.ts): time from a
 * filter or sort change to the updated table, with the page's main-thread CPU time for each change
 * (less stretched by a loaded machine than the wall time); `BENCH_UI_OBJECTS=0` skips it,
 * `BENCH_UI_PROFILE=1` adds the functions with the most self time in the page. Their names are
 * minified; to read them, build with `npx vite build --config plugins/admin-ui/app/vite.config.ts
 * --minify false` after saving `plugins/admin-ui/dist/.build-stamp`, and put the stamp back (without
 * it the run builds the dashboard again, minified).
 *
 * Targets (issue "admin dashboard"): sign-in form interactive < 1 s (median), first screen's
 * JavaScript < 300 KB gzip, objects list change to updated table < 300 ms (p50). `BENCH_STRICT=1`
 * exits 1 on a miss. Chromium: /usr/bin/chromium or CHROMIUM_BIN.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ADMIN_DIST } from '../test/helpers/admin-build.ts';
import { startBrowserProduct } from '../test/helpers/browser.ts';
import { teardownTestDatabases } from '../test/helpers/database.ts';
import { runObjectsScenario } from './ui/objects.ts';

const RUNS = Number(process.env.BENCH_UI_RUNS ?? 5);
const TARGET_MS = 1000;
const TARGET_JS_KB = 300;

const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.log(`bench:ui: ${RUNS} first loads of /sign-in, load average ${loadavg()[0].toFixed(1)} before the run`);
const product = await startBrowserProduct();
let missed = false;
try {
  const times: number[] = [];
  const js: number[] = [];
  const css: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const { page, context } = await product.page();
    const sizes: Promise<{ type: string; bytes: number }>[] = [];
    page.on('requestfinished', (request) => {
      sizes.push(request.sizes().then((s) => ({ type: request.resourceType(), bytes: s.responseBodySize })));
    });
    const started = performance.now();
    await page.goto('/sign-in');
    const email = page.getByLabel('E-mail');
    await email.waitFor();
    await page.getByRole('button', { name: 'Sign in' }).isEnabled();
    await email.fill('x');
    times.push(performance.now() - started);
    await page.waitForLoadState('networkidle');
    const loaded = await Promise.all(sizes);
    js.push(loaded.filter((s) => s.type === 'script').reduce((n, s) => n + s.bytes, 0));
    css.push(loaded.filter((s) => s.type === 'stylesheet').reduce((n, s) => n + s.bytes, 0));
    await context.close();
  }
  const ms = median(times);
  const jsKb = median(js) / 1024;
  const timeOk = ms < TARGET_MS;
  const sizeOk = jsKb < TARGET_JS_KB;
  missed = !timeOk || !sizeOk;
  console.log('');
  console.log('| Figure | Median | Runs | Target |');
  console.log('|---|---|---|---|');
  console.log(
    `| sign-in form interactive | ${ms.toFixed(0)} ms | ${times.map((t) => t.toFixed(0)).join(', ')} | < ${TARGET_MS} ms ${timeOk ? 'PASS' : 'MISS'} |`,
  );
  console.log(
    `| JavaScript transferred (gzip) | ${jsKb.toFixed(1)} KB | ${js.map(kb).join(', ')} | < ${TARGET_JS_KB} KB ${sizeOk ? 'PASS' : 'MISS'} |`,
  );
  console.log(`| CSS transferred (gzip) | ${kb(median(css))} KB | ${css.map(kb).join(', ')} | none |`);

  const assets = path.join(ADMIN_DIST, 'assets');
  const chunks = readdirSync(assets)
    .filter((f) => f.endsWith('.js'))
    .map((f) => ({ f, gz: gzipSync(readFileSync(path.join(assets, f)), { level: 9 }).length }))
    .sort((a, b) => b.gz - a.gz);
  console.log('');
  console.log(`Build: ${chunks.length} JavaScript chunks; the largest (gzip):`);
  for (const c of chunks.slice(0, 8)) console.log(`  ${kb(c.gz).padStart(7)} KB  ${c.f}`);
  if (Number(process.env.BENCH_UI_OBJECTS ?? 100_000) > 0) missed = (await runObjectsScenario(product)) || missed;
} finally {
  await product.close();
  await teardownTestDatabases();
}
if (missed && process.env.BENCH_STRICT === '1') process.exit(1);
