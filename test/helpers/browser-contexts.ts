import type { Browser, BrowserContext, Page } from 'playwright-core';

/**
 * Browser contexts handed out again once a test is done with them, emptied of everything a test can
 * leave behind except the HTTP cache (and with it V8's cache of compiled scripts).
 *
 * Why: Chromium was most of the suite's CPU time (600 of some 1,000 s), and the first page of a
 * fresh context cost it 1.7 to 2.4 s of CPU to draw the dashboard, against 0.7 s for a page of a
 * context whose renderer has drawn it before. A returned context keeps one page open on the
 * product's origin (`keeper`), so with `--process-per-site` the next test's pages join a renderer
 * process whose caches are warm. On three browser files this took Chromium's CPU from 75 to 63 s.
 *
 * What a returned context keeps from the previous test: cached files and answers (as a returning
 * visitor's browser would) and nothing else. Cookies, local storage, IndexedDB, service workers and
 * cache storage of every origin it talked to are cleared, and its pages closed. A test that changes
 * the context in a way this cannot undo (routes, init scripts, bindings, permissions, listeners,
 * offline, its own close, its clock) gets the context closed instead of returned: such calls are
 * seen through the proxy `take` hands out.
 */
const TAINTING = new Set<PropertyKey>([
  'route',
  'routeFromHAR',
  'routeWebSocket',
  'unroute',
  'unrouteAll',
  'addInitScript',
  'exposeBinding',
  'exposeFunction',
  'grantPermissions',
  'clearPermissions',
  'setGeolocation',
  'setOffline',
  'setExtraHTTPHeaders',
  'setHTTPCredentials',
  'setDefaultNavigationTimeout',
  'on',
  'once',
  'addListener',
  'prependListener',
  'prependOnceListener',
  'close',
  'clock',
  'tracing',
  'request',
]);

/** Every kind of site data `Storage.clearDataForOrigin` knows, less the HTTP cache this pool is for. */
const SITE_DATA =
  'cookies,file_systems,indexeddb,local_storage,websql,service_workers,cache_storage,shared_storage,storage_buckets';

interface Entry {
  context: BrowserContext;
  key: string;
  baseURL: string;
  /** Origins the context sent requests to: their site data is cleared before it is handed out again. */
  origins: Set<string>;
  tainted: boolean;
  /** A page kept open on the base URL, so the site's renderer process stays (see `empty`). */
  keeper?: Page;
}

export interface ContextPool {
  /** A context with this viewport and base URL: a returned one when there is one, else a new one. */
  take(opts: { viewport: { width: number; height: number }; baseURL: string }): Promise<BrowserContext>;
  /** Every context taken since the last call: emptied and kept, or closed when it cannot be emptied. */
  giveBack(): Promise<void>;
  close(): Promise<void>;
}

export function contextPool(browser: Browser, defaultTimeoutMs: number): ContextPool {
  const free = new Map<string, Entry[]>();
  const taken: Entry[] = [];
  const all = new Set<Entry>();

  const proxy = (entry: Entry): BrowserContext =>
    new Proxy(entry.context, {
      get(target, property, receiver) {
        if (TAINTING.has(property)) entry.tainted = true;
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });

  async function empty(entry: Entry): Promise<void> {
    const { context } = entry;
    for (const page of context.pages()) if (page !== entry.keeper) await page.close();
    if (!entry.keeper) {
      entry.keeper = await context.newPage();
      await entry.keeper.goto(new URL('/health/live', entry.baseURL).href);
    }
    const cdp = await context.newCDPSession(entry.keeper);
    for (const origin of entry.origins)
      await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: SITE_DATA });
    await cdp.detach();
    await context.clearCookies();
    context.setDefaultTimeout(defaultTimeoutMs);
  }

  async function discard(entry: Entry): Promise<void> {
    all.delete(entry);
    await entry.context.close().catch(() => undefined);
  }

  return {
    async take(opts) {
      const key = `${opts.viewport.width}x${opts.viewport.height} ${opts.baseURL}`;
      let entry = free.get(key)?.pop();
      if (!entry) {
        const context = await browser.newContext(opts);
        context.setDefaultTimeout(defaultTimeoutMs);
        const created: Entry = {
          context,
          key,
          baseURL: opts.baseURL,
          origins: new Set([new URL(opts.baseURL).origin]),
          tainted: false,
        };
        context.on('request', (request) => {
          const { origin } = new URL(request.url());
          if (origin.startsWith('http')) created.origins.add(origin);
        });
        all.add(created);
        entry = created;
      }
      taken.push(entry);
      return proxy(entry);
    },
    async giveBack() {
      for (const entry of taken.splice(0)) {
        if (entry.tainted) {
          await discard(entry);
          continue;
        }
        try {
          await empty(entry);
          free.set(entry.key, [...(free.get(entry.key) ?? []), entry]);
        } catch {
          await discard(entry);
        }
      }
    },
    async close() {
      taken.splice(0);
      free.clear();
      for (const entry of [...all]) await discard(entry);
    },
  };
}
