/**
 * `npm run bench:ui`: the admin dashboard's first load in Chromium, from the product's own server
 * (the all-in-one kernel on a loopback port, the built app, embedded PostgreSQL or TEST_DATABASE_URL).
 *
 * For each of BENCH_UI_RUNS (5) fresh browser contexts (empty cache), it opens `/sign-in` and
 * measures the time from navigation to the sign-in form being interactive (the e-mail field editable
 * and the Sign in button enabled), and the bytes the browser received for JavaScript and CSS
 * (encoded: brotli or gzip, as the server sent them). It then signs in (an editor: no second factor) and waits for the
 * dashboard's home screen and a quiet network: what the browser received from the navigation to
 * `/sign-in` to there (headers and bodies as sent: DevTools' "transferred"; scripts, stylesheets, the
 * API's answers, the page and its icon) is the first screen's weight. It also lists the build's
 * chunks and stylesheets with their gzip and brotli sizes: every screen of every plugin is a chunk
 * of its own. `BENCH_UI_FILES=1` lists each response of the first screen with its size.
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
 * JavaScript < 300 KB gzip; issue 36 §7: the first screen after sign-in < 250 KB transferred, objects list change to updated table < 300 ms (p50). `BENCH_STRICT=1`
 * exits 1 on a miss. Chromium: /usr/bin/chromium or CHROMIUM_BIN.
 */
import { loadavg } from 'node:os';
import path from 'node:path';
import { ADMIN_DIST } from '../test/helpers/admin-build.ts';
import { startBrowserProduct } from '../test/helpers/browser.ts';
import { teardownTestDatabases } from '../test/helpers/database.ts';
import { runObjectsScenario } from './ui/objects.ts';
import { buildFiles, kb, median, type Transfer, watchTransfer, weightRow } from './ui/weight.ts';

const RUNS = Number(process.env.BENCH_UI_RUNS ?? 5);
const TARGET_MS = 1000;
const TARGET_JS_KB = 300;
/** Issue 36 §7: sign-in to the dashboard's first screen, cold cache. */
const TARGET_FIRST_SCREEN_KB = 250;

console.log(`bench:ui: ${RUNS} first loads of /sign-in, load average ${loadavg()[0].toFixed(1)} before the run`);
const product = await startBrowserProduct();
let missed = false;
try {
  const times: number[] = [];
  const js: number[] = [];
  const css: number[] = [];
  const firstScreens: Transfer[] = [];
  const editor = await product.t.createUser({ roles: ['editor'] });
  for (let i = 0; i < RUNS; i++) {
    const { page, context } = await product.page();
    const transfer = watchTransfer(page);
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
    await email.fill(editor.email);
    await page.getByLabel(/^Password/).fill(editor.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.waitForLoadState('networkidle');
    firstScreens.push(await transfer.total());
    await context.close();
  }
  const ms = median(times);
  const jsKb = median(js) / 1024;
  const timeOk = ms < TARGET_MS;
  const sizeOk = jsKb < TARGET_JS_KB;
  const first = weightRow('sign-in to the first screen, transferred', firstScreens, TARGET_FIRST_SCREEN_KB);
  missed = !timeOk || !sizeOk || !first.met;
  console.log('');
  console.log('| Figure | Median | Runs | Target |');
  console.log('|---|---|---|---|');
  console.log(
    `| sign-in form interactive | ${ms.toFixed(0)} ms | ${times.map((t) => t.toFixed(0)).join(', ')} | < ${TARGET_MS} ms ${timeOk ? 'PASS' : 'MISS'} |`,
  );
  console.log(
    `| JavaScript transferred (as sent) | ${jsKb.toFixed(1)} KB | ${js.map(kb).join(', ')} | < ${TARGET_JS_KB} KB ${sizeOk ? 'PASS' : 'MISS'} |`,
  );
  console.log(`| CSS transferred (as sent) | ${kb(median(css))} KB | ${css.map(kb).join(', ')} | none |`);
  console.log(first.line);
  const last = firstScreens[firstScreens.length - 1];
  console.log(
    `\nScripts and stylesheets were sent as ${last.encodings.join(', ')} (identity: files under 1 KB)${last.uncompressed.length ? `; uncompressed over 1 KB: ${last.uncompressed.join(', ')}` : ''}.`,
  );

  if (process.env.BENCH_UI_FILES === '1') {
    console.log('\nWhat the first screen received (BENCH_UI_FILES=1), largest first:');
    for (const f of last.files) console.log(`  ${kb(f.bytes).padStart(7)} KB  ${f.type.padEnd(10)} ${f.path}`);
  }

  const assets = path.join(ADMIN_DIST, 'assets');
  for (const ext of ['.js', '.css']) {
    const files = buildFiles(assets, ext);
    const sum = (k: 'raw' | 'gz' | 'br') => kb(files.reduce((n, f) => n + f[k], 0));
    console.log('');
    console.log(
      `Build: ${files.length} ${ext} files, ${sum('raw')} KB raw, ${sum('gz')} KB gzip, ${sum('br')} KB brotli; the largest (raw / gzip / brotli):`,
    );
    for (const c of files.slice(0, 8))
      console.log(`  ${kb(c.raw).padStart(7)} / ${kb(c.gz).padStart(6)} / ${kb(c.br).padStart(6)} KB  ${c.f}`);
  }
  if (Number(process.env.BENCH_UI_OBJECTS ?? 100_000) > 0) missed = (await runObjectsScenario(product)) || missed;
} finally {
  await product.close();
  await teardownTestDatabases();
}
if (missed && process.env.BENCH_STRICT === '1') process.exit(1);
