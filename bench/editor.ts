/**
 * `npm run bench:editor`: the page editor in Chromium against the product's own server (the
 * all-in-one kernel on a loopback port, the built apps, embedded PostgreSQL or TEST_DATABASE_URL),
 * on a page of BENCH_EDITOR_NODES (500) nodes: 100 blocks of a section with a heading, a paragraph,
 * a link and an image.
 *
 * - Time to an editable canvas: from the navigation to `/cms-one/editor/pages/<id>` (fresh context,
 *   empty cache, signed in by cookie) to the first animation frame in which the canvas document holds
 *   the page's last node (a click on it selects it for the inspector), timed in the page from its
 *   navigation start; median of BENCH_EDITOR_RUNS (5). With it, the weight of that first canvas: what
 *   the browser received from the navigation to the moment the test driver finds the node (headers
 *   and bodies as sent: DevTools' "transferred"), the page's own pictures left out (they are content,
 *   not the editor). Also shown, for comparison with earlier runs:
 *   the same moment as the test driver notices it (its polling into the new frame adds 0.2-0.5 s on a
 *   busy renderer), and the outline listing the node (drawn after the canvas).
 * - Keystroke to canvas: a paragraph selected, BENCH_EDITOR_KEYS (40) characters typed into the
 *   inspector's text field; timed in the page from the keydown to the canvas element's text
 *   changing (DOM) and to the next animation frame after it (what the user sees), p50 and p95.
 * - Autosave server side: BENCH_EDITOR_SAVES (30) saves of the whole 500-node page, as the editor
 *   sends them (PATCH with the tree and If-Match), each changing one text, timed over loopback HTTP;
 *   p50 and p95.
 * - Autosave to a working copy: the same saves of a published copy of the page by the editor (no
 *   objects:publish), each stored as the page's working copy (the live page stays); p50 and p95.
 *
 * Targets (issue "page editor"): editable canvas < 1.5 s, keystroke to canvas < 50 ms,
 * autosave < 200 ms p50; issue 36 §7: the first canvas < 350 KB transferred. `BENCH_STRICT=1` exits 1 on a miss. Chromium: /usr/bin/chromium or CHROMIUM_BIN.
 */
import { loadavg } from 'node:os';
import { signInAs, startBrowserProduct } from '../test/helpers/browser.ts';
import { teardownTestDatabases } from '../test/helpers/database.ts';
import { type Transfer, watchTransfer, weightRow } from './ui/weight.ts';

const NODES = Number(process.env.BENCH_EDITOR_NODES ?? 500);
const RUNS = Number(process.env.BENCH_EDITOR_RUNS ?? 5);
const KEYS = Number(process.env.BENCH_EDITOR_KEYS ?? 40);
const SAVES = Number(process.env.BENCH_EDITOR_SAVES ?? 30);
const TARGETS = { openMs: 1500, keyMs: 50, saveMs: 200, openKb: 350 };

const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];
const ms = (x: number) => `${x.toFixed(1)} ms`;

type Node = { type: string; props?: Record<string, unknown>; text?: string; children?: Node[] };

/** A section of blocks, each a div holding a heading, a paragraph, a link and an image: 5 nodes a block. */
function bigTree(nodes: number, mark = ''): Node {
  const blocks = Math.max(1, Math.floor((nodes - 1) / 5));
  return {
    type: 'section',
    children: Array.from({ length: blocks }, (_, i) => ({
      type: 'div',
      props: { className: 'block' },
      children: [
        { type: 'h3', text: `Block ${i}${mark}` },
        { type: 'p', text: `Paragraph ${i}: some words a real page would carry in a block like this one.` },
        { type: 'a', props: { href: `/page-${i}` }, text: 'Read more' },
        { type: 'img', props: { src: `/dam-asset/pictures/p${i}.png`, alt: `Picture ${i}` } },
      ],
    })),
  };
}

console.log(
  `bench:editor: a ${NODES}-node page, ${RUNS} opens, ${KEYS} keystrokes, ${SAVES} saves; load average ${loadavg()[0].toFixed(1)} before the run`,
);
const product = await startBrowserProduct();
let missed = false;
try {
  const { t, baseUrl } = product;
  const admin = await t.admin();
  const site = await t.call('POST', '/cms-one/websites', admin, {
    name: 'Bench site',
    rootPath: `/bench${Date.now().toString(36)}`,
    locales: ['en'],
  });
  const tree = bigTree(NODES);
  const created = await t.call('POST', '/cms-one/pages', admin, {
    websiteId: site.json().id,
    locale: 'en',
    path: '/big',
    title: 'Big page',
    content: tree,
  });
  if (created.statusCode !== 201) throw new Error(`page create failed: ${created.body}`);
  const pageId = created.json().id as string;
  const blocks = tree.children!.length;
  const lastKey = `r.${blocks - 1}.3`;
  // An interval longer than the run: the browser part measures the editor, not autosaves.
  await t.call('PUT', '/cms-one/settings/autosave', admin, { enabled: true, intervalSeconds: 3600 });
  const editor = await t.createUser({ permissions: ['objects:read', 'pages:edit'] });

  // 1. Time to an editable canvas.
  const opens: number[] = [];
  const driverOpens: number[] = [];
  const outlines: number[] = [];
  const weights: Transfer[] = [];
  // In the editor's page (the canvas frame runs no script): each animation frame looks for the node
  // in the canvas document; the first one that finds it is the moment the user can click it.
  const probe = `(() => {
    const key = ${JSON.stringify(lastKey)};
    function tick() {
      const frame = document.querySelector('iframe.cms-canvas-frame');
      if (frame && frame.contentDocument && frame.contentDocument.querySelector('[data-cms-node="' + key + '"]')) {
        window.cmsBenchCanvasAt = performance.now();
        return;
      }
      requestAnimationFrame(tick);
    }
    requestAnimationFrame(tick);
  })();`;
  for (let i = 0; i < RUNS; i++) {
    const { page, context } = await product.page();
    await signInAs(product, context, editor);
    await page.addInitScript({ content: probe });
    const transfer = watchTransfer(page, (url) => url.includes('/dam-asset/pictures/'));
    const started = performance.now();
    await page.goto(`/cms-one/editor/pages/${pageId}`);
    // In the canvas document (the images it names load after: they are not part of the figure).
    await page
      .frameLocator('iframe.cms-canvas-frame')
      .locator(`[data-cms-node="${lastKey}"]`)
      .waitFor({ state: 'attached' });
    driverOpens.push(performance.now() - started);
    weights.push(await transfer.total());
    // A function, not a string: the editor's CSP refuses string evaluation on later polls.
    const canvasAt = await page.waitForFunction(
      () => (globalThis as unknown as { cmsBenchCanvasAt?: number }).cmsBenchCanvasAt,
    );
    opens.push((await canvasAt.jsonValue()) as number);
    await page.locator(`li[data-node-key="${lastKey}"]`).waitFor({ state: 'attached' });
    outlines.push(performance.now() - started);
    await context.close();
  }

  // 2. Keystroke to canvas.
  const { page, context } = await product.page();
  await signInAs(product, context, editor);
  await page.goto(`/cms-one/editor/pages/${pageId}`);
  const target = `r.${Math.floor(blocks / 2)}.1`;
  await page.frameLocator('iframe.cms-canvas-frame').locator(`[data-cms-node="${target}"]`).click();
  const field = page.getByLabel('Text');
  await field.waitFor();
  await field.click();
  await field.press('End');
  await page.evaluate((key) => {
    // Runs in the page (the root tsconfig has no DOM types). No function is bound to a name or a
    // property in here: the bundler would wrap it in a helper that does not exist in the page.
    type El = {
      addEventListener(t: string, f: () => void, o?: boolean): void;
      querySelector(s: string): El | null;
      contentDocument?: El | null;
    };
    const g = globalThis as unknown as {
      document: El;
      performance: { now(): number };
      requestAnimationFrame(f: () => void): void;
      MutationObserver: new (f: () => void) => { observe(el: El, o: Record<string, boolean>): void };
      cmsBench: { dom: number[]; frame: number[]; pressed: number; observed: El | null };
    };
    g.cmsBench = { dom: [], frame: [], pressed: 0, observed: null };
    g.document.querySelector('textarea')!.addEventListener(
      'keydown',
      () => {
        g.cmsBench.pressed = g.performance.now();
      },
      true,
    );
    const frame = g.document.querySelector('iframe.cms-canvas-frame')!;
    // Every 20 ms: a full render swaps the canvas body, so the element to watch may be a new one.
    setInterval(() => {
      const el = frame.contentDocument?.querySelector(`[data-cms-node="${key}"]`) ?? null;
      if (!el || el === g.cmsBench.observed) return;
      g.cmsBench.observed = el;
      new g.MutationObserver(() => {
        if (!g.cmsBench.pressed) return;
        const pressed = g.cmsBench.pressed;
        g.cmsBench.pressed = 0;
        g.cmsBench.dom.push(g.performance.now() - pressed);
        g.requestAnimationFrame(() => {
          g.cmsBench.frame.push(g.performance.now() - pressed);
        });
      }).observe(el, { childList: true, characterData: true, subtree: true });
    }, 20);
  }, target);
  await page.waitForTimeout(100);
  for (let i = 0; i < KEYS; i++) {
    await page.keyboard.type(String.fromCharCode(97 + (i % 26)));
    await page.waitForTimeout(60); // a fast typist: about 16 characters a second
  }
  const typed = (await page.evaluate(
    () => (globalThis as unknown as { cmsBench: { dom: number[]; frame: number[] } }).cmsBench,
  )) as { dom: number[]; frame: number[] };
  await context.close();

  // 3. Autosave of the whole page, server side (loopback HTTP).
  const saves: number[] = [];
  let etag = (await fetch(`${baseUrl}/cms-one/pages/${pageId}`, { headers: { cookie: editor.cookie } })).headers.get(
    'etag',
  )!;
  for (let i = 0; i < SAVES; i++) {
    const body = JSON.stringify({ content: bigTree(NODES, ` v${i}`) });
    const started = performance.now();
    const res = await fetch(`${baseUrl}/cms-one/pages/${pageId}`, {
      method: 'PATCH',
      headers: { cookie: editor.cookie, 'content-type': 'application/json', 'if-match': etag },
      body,
    });
    await res.arrayBuffer();
    saves.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`save answered ${res.status}`);
    etag = res.headers.get('etag')!;
  }

  // 4. The same autosaves of a published page by the editor (no objects:publish): each one writes the
  // page's working copy, the live page stays as published.
  const live = await t.call('POST', '/cms-one/pages', admin, {
    websiteId: site.json().id,
    locale: 'en',
    path: '/big-live',
    title: 'Big live page',
    published: true,
    content: tree,
  });
  if (live.statusCode !== 201) throw new Error(`published page create failed: ${live.body}`);
  const liveId = live.json().id as string;
  const draftSaves: number[] = [];
  etag = (await fetch(`${baseUrl}/cms-one/pages/${liveId}`, { headers: { cookie: editor.cookie } })).headers.get(
    'etag',
  )!;
  for (let i = 0; i < SAVES; i++) {
    const body = JSON.stringify({ content: bigTree(NODES, ` d${i}`) });
    const started = performance.now();
    const res = await fetch(`${baseUrl}/cms-one/pages/${liveId}`, {
      method: 'PATCH',
      headers: { cookie: editor.cookie, 'content-type': 'application/json', 'if-match': etag },
      body,
    });
    const answer = (await res.json()) as { draft?: unknown };
    draftSaves.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`working-copy save answered ${res.status}`);
    if (!answer.draft) throw new Error('the save of the published page went live, not to its working copy');
    etag = res.headers.get('etag')!;
  }

  const open = quantile(opens, 0.5);
  const keyDom = quantile(typed.dom, 0.5);
  const keyFrame = quantile(typed.frame, 0.5);
  const save = quantile(saves, 0.5);
  const rows: Array<[string, string, string, boolean | null]> = [
    ['editable canvas, in the page (median)', ms(open), `< ${TARGETS.openMs} ms`, open < TARGETS.openMs],
    ['the same, as the test driver notices it (median)', ms(quantile(driverOpens, 0.5)), 'none', null],
    ['outline listing every node (median)', ms(quantile(outlines, 0.5)), 'none', null],
    [
      `keystroke to canvas DOM (p50 / p95, ${typed.dom.length} keys)`,
      `${ms(keyDom)} / ${ms(quantile(typed.dom, 0.95))}`,
      `< ${TARGETS.keyMs} ms`,
      keyDom < TARGETS.keyMs,
    ],
    [
      'keystroke to the next frame (p50 / p95)',
      `${ms(keyFrame)} / ${ms(quantile(typed.frame, 0.95))}`,
      `< ${TARGETS.keyMs} ms`,
      keyFrame < TARGETS.keyMs,
    ],
    [
      `autosave of the ${NODES}-node page (p50 / p95)`,
      `${ms(save)} / ${ms(quantile(saves, 0.95))}`,
      `< ${TARGETS.saveMs} ms p50`,
      save < TARGETS.saveMs,
    ],
    [
      'autosave of the published page, to its working copy (p50 / p95)',
      `${ms(quantile(draftSaves, 0.5))} / ${ms(quantile(draftSaves, 0.95))}`,
      `< ${TARGETS.saveMs} ms p50`,
      quantile(draftSaves, 0.5) < TARGETS.saveMs,
    ],
  ];
  console.log('');
  console.log('| Figure | Value | Target |');
  console.log('|---|---|---|');
  for (const [name, value, goal, ok] of rows)
    console.log(`| ${name} | ${value} | ${goal}${ok === null ? '' : ok ? ' PASS' : ' MISS'} |`);
  console.log(
    `\nopens: ${opens.map((x) => x.toFixed(0)).join(', ')} ms; outline: ${outlines.map((x) => x.toFixed(0)).join(', ')} ms`,
  );
  const weight = weightRow('first canvas, transferred (median)', weights, TARGETS.openKb);
  console.log('\n| Weight | Median | Runs | Target |');
  console.log('|---|---|---|---|');
  console.log(weight.line);
  missed = rows.some((r) => r[3] === false) || !weight.met;
  if (typed.dom.length < KEYS / 2) {
    console.log(`only ${typed.dom.length} of ${KEYS} keystrokes reached the canvas`);
    missed = true;
  }
} finally {
  await product.close();
  await teardownTestDatabases();
}
if (missed && process.env.BENCH_STRICT === '1') process.exit(1);
