import { createRequire } from 'node:module';
import AxeBuilder from '@axe-core/playwright';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { buildAdminUi } from './admin-build.ts';
import { contextPool } from './browser-contexts.ts';
import { startTestKernel, type TestKernel, type TestKernelOptions } from './kernel.ts';
import { createTestDatabase } from './database.ts';
import { afterEveryTest, afterRoot, inParallelWorker } from './root-hooks.ts';

/** Debian's Chromium (`apt-get install chromium`); CHROMIUM_BIN names another binary. */
const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';

/** The flags of every run: headless, no network of its own, nothing from a previous profile. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // One renderer process per site: a test's pages join the one a pooled context keeps open
  // (browser-contexts.ts) instead of starting a cold one.
  '--process-per-site',
];

/** The part of a page's globals the animation wait reads (the server's type check has no DOM library). */
type BrowserGlobals = {
  document: {
    getAnimations(): { playState: string; effect: { getComputedTiming(): { iterations?: number } } | null }[];
  };
};

/**
 * axe-core's script (the copy `@axe-core/playwright` itself loads), evaluated only in a document that
 * has none yet: a check used to evaluate its 0.5 MB twice, about 0.2 s, on every call in a page.
 */
const AXE_ONCE = (() => {
  const requireFromAxeBuilder = createRequire(createRequire(import.meta.url).resolve('@axe-core/playwright'));
  const { source } = requireFromAxeBuilder('axe-core') as { source: string };
  return `if (!window.axe) { ${source} }`;
})();

/** The dashboard's two widths under test: a laptop and a phone. */
export const WIDTHS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

/** The product on a port (all plugins, the built dashboard) and one browser for the whole file. */
export interface BrowserProduct {
  t: TestKernel;
  baseUrl: string;
  browser: Browser;
  /**
   * A browser context with no cookies or site data (a new one, or one an earlier test used, emptied:
   * browser-contexts.ts) and a new page at `width`; the page's console errors and uncaught exceptions
   * are collected in `errors`.
   */
  page(width?: keyof typeof WIDTHS): Promise<{ page: Page; context: BrowserContext; errors: string[] }>;
  /** Ends every context `page()` handed out so far (after each test under mocha, see below). */
  closePages(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Builds the dashboard when its sources changed, starts a test kernel with every plugin listening on
 * a loopback port (embedded PostgreSQL as usual) and launches Chromium with a fresh profile.
 */
export async function startBrowserProduct(opts: TestKernelOptions = {}): Promise<BrowserProduct> {
  buildAdminUi({ ifStale: true });
  const t = await startTestKernel({ service: 'all', ...opts });
  const address = await t.kernel.app.listen({ host: '127.0.0.1', port: 0 });
  let browser: Browser;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      // Playwright gives every launch a fresh temporary profile (user data dir) and removes it on close.
      args: CHROMIUM_ARGS,
      timeout: 60_000,
    });
  } catch (err) {
    await t.close();
    throw new Error(
      `Chromium did not start (${CHROMIUM}); install Debian's chromium package or set CHROMIUM_BIN: ${(err as Error).message}`,
    );
  }
  const contexts = contextPool(browser, 15_000);
  return {
    t,
    baseUrl: address,
    browser,
    async page(width = 'desktop') {
      const context = await contexts.take({ viewport: WIDTHS[width], baseURL: address });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(`console: ${m.text()}`);
      });
      page.on('pageerror', (e) => errors.push(`page: ${e.message}`));
      return { page, context, errors };
    },
    closePages: () => contexts.giveBack(),
    async close() {
      await contexts.close();
      await browser.close().catch(() => undefined);
      await t.close();
    },
  };
}

let shared: Promise<BrowserProduct> | undefined;

/**
 * The one product and browser of a test run, shared by every browser test file (started on first
 * use, closed after the run's last test, or when a `--parallel` worker exits): one Chromium and one
 * kernel per run keeps the browser tests fast. Each test makes its own users and contexts, so files do not see each other's state.
 */
export function sharedBrowserProduct(): Promise<BrowserProduct> {
  shared ??= (async () =>
    startBrowserProduct({ database: await createTestDatabase({ untilTeardown: inParallelWorker() }) }))();
  return shared;
}

// Each test's pages are closed after it, so the dashboards and editors of earlier tests (polling their
// APIs, autosave timers) do not run beside the later ones; the shared product goes after the root suite
// (the run's last test; a parallel worker's at its exit). Benchmarks and scripts run no root hooks and
// close their own product.
afterEveryTest(async () => {
  await (await shared?.catch(() => undefined))?.closePages();
});
afterRoot(async () => {
  // A parallel worker keeps its product for its next browser file (its database is kept until the
  // teardown); Playwright ends Chromium when the worker exits, and the kernel ends with the worker.
  if (inParallelWorker()) return;
  const product = shared;
  shared = undefined;
  await (await product?.catch(() => undefined))?.close();
});

/**
 * Fails with axe-core's serious and critical findings on the page as it is now. `exclude` leaves
 * parts out (CSS selectors), such as the page editor's canvas, which shows the user's own content.
 */
export async function expectAccessible(page: Page, where: string, opts: { exclude?: string[] } = {}): Promise<void> {
  // A dialog or notice still fading in has half-transparent colours, which axe reports as contrast
  // failures: wait for every finite CSS transition and animation to end (spinners loop for ever).
  // A function, not a string: Playwright evaluates a string predicate again on every poll, which the
  // dashboard's policy (no 'unsafe-eval') refuses, so the wait ended at the first poll (and the
  // refusal once reached a test's page errors).
  await page
    .waitForFunction(
      () =>
        (globalThis as unknown as BrowserGlobals).document
          .getAnimations()
          .every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity),
      undefined,
      { timeout: 3_000, polling: 50 },
    )
    .catch(() => {});
  const analyze = async () => {
    let builder = new AxeBuilder({ page, axeSource: AXE_ONCE }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']);
    // A page without frames gets the same findings from axe.run in the page itself; the frame-aware
    // run (runPartial in each frame, finishRun in a new blank tab) is about half of each check's time.
    // A page with frames, such as the editor's canvas or a mail preview of its own origin, keeps it.
    if (page.frames().length === 1) builder = builder.setLegacyMode();
    for (const selector of opts.exclude ?? []) builder = builder.exclude(selector);
    const results = await builder.analyze();
    return results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  };
  let bad = await analyze();
  // On a loaded machine axe has read a control between two renders (a button re-coloured as it
  // became enabled). A real contrast defect is still there a moment later: read once more and
  // report only what persists.
  if (bad.some((v) => v.id === 'color-contrast')) {
    await page.waitForTimeout(500);
    bad = await analyze();
  }
  if (bad.length > 0) {
    const lines = bad.map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help}\n    ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 5)
          .join('\n    ')}`,
    );
    throw new Error(`axe-core on ${where}:\n  ${lines.join('\n  ')}`);
  }
}

/**
 * The page's errors less Chromium's own line for an API answer of 401 or 403 ("Failed to load
 * resource: ... status of 401"): those are answers the app expects and handles (signed out, not
 * allowed), and less Playwright's own scripts refused by a sandboxed frame (below). Every script
 * error of the app and any other failed load stays.
 */
export function appErrors(errors: readonly string[]): string[] {
  return errors.filter(
    (e) =>
      !/Failed to load resource: the server responded with a status of 40[13]\b/.test(e) &&
      !PLAYWRIGHT_IN_SANDBOX.test(e),
  );
}

/**
 * Playwright evaluates its own scripts in every frame of a page (microsoft/playwright#33343), and
 * Chromium refuses them in a sandboxed frame without `allow-scripts` (the editor's canvas, a version
 * preview) with this line: seen at random, whenever a frame is still the empty `about:blank` as
 * Playwright reaches it. The app runs no script there.
 */
const PLAYWRIGHT_IN_SANDBOX =
  /^console: Blocked script execution in 'about:(blank|srcdoc)' because the document's frame is sandboxed/;

/** Signs `page`'s context in as `user` (its session cookie), without the sign-in screen. */
export async function signInAs(
  product: BrowserProduct,
  context: BrowserContext,
  user: { cookie: string },
): Promise<void> {
  const [name, value] = user.cookie.split('=');
  await context.addCookies([{ name, value, url: product.baseUrl, httpOnly: true, sameSite: 'Lax' }]);
}

/**
 * Signs in through the dashboard's own form, starting at `path` (which the sign-in returns to); `exact`
 * keeps a single-sign-on button ("Sign in with ...") out.
 */
export async function signIn(page: Page, user: { email: string; password: string }, path: string): Promise<void> {
  await page.goto(path);
  await page.getByLabel('E-mail').fill(user.email);
  await page.getByLabel(/^Password/).fill(user.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** A screen's title: its one level-1 heading. */
export const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { name, level: 1 });
