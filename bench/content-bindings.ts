/**
 * Data bindings to classes (`npm run bench:content-bindings`): the public page HTML of a page whose
 * list is bound to a class (20 published objects shown) against the same page with those 20 items
 * written out by hand (the same HTML, no binding).
 *
 * - Product: two child processes on one database (bench/content/bindings-server.ts), the kernel with
 *   the data and content plugins, NODE_ENV=production: one with the data plugin's read cache (the
 *   default), one with it off (`PUBLIC_DATA_READ_CACHE_BYTES=0`: each request reads PostgreSQL).
 * - Data: a class of 4 fields, 20 published objects and 20 drafts (left out), 2 published pages.
 * - Load: wrk `-t1 -c32 --latency` (autocannon when wrk is missing) with `Accept: text/html`, per
 *   server static, bound, bound, static (ABBA), each side's two runs averaged.
 *
 * Target: the bound page ≥ 0.5x the static page's req/s with the read cache. Environment:
 * BENCH_SECONDS (5), BENCH_WARMUP_SECONDS (2), BENCH_STRICT=1 (exit 1 on a miss), TEST_DATABASE_URL.
 */
import { createTestDatabase } from '../test/helpers/database.ts';
import { startChild } from './lib/children.ts';
import { loadToolName, runLoad, type LoadResult, type PreparedRequest } from './lib/load.ts';
import { benchRun } from './lib/run.ts';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const SECONDS = env('BENCH_SECONDS', 5);
const WARMUP = env('BENCH_WARMUP_SECONDS', 2);
const ITEMS = 20;
const log = (...args: unknown[]) => console.error('[bench:content-bindings]', ...args);
const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });

const { children, databases, cleanup } = benchRun();

const mean = (a: LoadResult, b: LoadResult): LoadResult => ({
  ...a,
  rps: (a.rps + b.rps) / 2,
  p50: (a.p50 + b.p50) / 2,
  p99: (a.p99 + b.p99) / 2,
  requests: a.requests + b.requests,
  non2xx: a.non2xx + b.non2xx,
  errors: a.errors + b.errors,
});

async function ok(res: Response, status: number, what: string): Promise<Record<string, unknown>> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : {};
}

/** One item of the list: what the template gives for an object. */
const item = (name: string, rank: number, slug: string, summary: string) => ({
  type: 'li',
  props: { className: 'product' },
  children: [
    { type: 'h3', children: [{ type: 'a', props: { href: `/products/${slug}` }, text: name }] },
    { type: 'p', text: summary },
    { type: 'small', text: `Rank ${rank}` },
  ],
});

const page = (list: Record<string, unknown>) => ({
  type: 'section',
  children: [
    { type: 'h1', text: 'Our products' },
    { type: 'p', text: 'Everything we make, best first.' },
    list,
    { type: 'p', text: 'Prices include VAT.' },
  ],
});

async function main(): Promise<void> {
  log(`load tool: ${loadToolName()}; ${SECONDS}s per load`);
  const db = await createTestDatabase();
  databases.push(db);
  const cached = await startChild<{ port: number; cookie: string }>('../content/bindings-server.ts', {
    BENCH_DATABASE_URL: db.url,
  });
  children.push(cached);
  const uncached = await startChild<{ port: number; cookie: string }>('../content/bindings-server.ts', {
    BENCH_DATABASE_URL: db.url,
    PUBLIC_DATA_READ_CACHE_BYTES: '0',
  });
  children.push(uncached);
  const base = `http://127.0.0.1:${cached.info.port}`;
  const headers = { cookie: cached.info.cookie, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) =>
    ok(await fetch(base + path, { method: 'POST', headers, body: JSON.stringify(body) }), 201, path);

  const root = `bind${process.pid}`;
  const site = await post('/cms-one/websites', { name: root, rootPath: `/${root}`, locales: ['en'] });
  const cls = await post('/data-classes', {
    name: `Product${process.pid}`,
    fields: [
      { name: 'name', type: 'text' },
      { name: 'slug', type: 'slug' },
      { name: 'rank', type: 'number' },
      { name: 'summary', type: 'text' },
    ],
  });
  const objects = Array.from({ length: ITEMS }, (_, i) => ({
    name: `Product ${i + 1} <deluxe>`,
    slug: `product-${i + 1}`,
    rank: i + 1,
    summary: `A fine product, number ${i + 1}, made with care & shipped quickly.`,
  }));
  for (const [i, attributes] of objects.entries()) {
    await post('/data-objects', { classId: cls.id, locale: 'en', published: true, attributes });
    await post('/data-objects', {
      classId: cls.id,
      locale: 'en',
      published: false,
      attributes: { ...attributes, rank: -i },
    });
  }
  const list = { type: 'ul', props: { className: 'products' } };
  await post('/cms-one/pages', {
    websiteId: site.id,
    locale: 'en',
    path: '/static',
    title: 'Static',
    published: true,
    content: page({ ...list, children: objects.map((o) => item(o.name, o.rank, o.slug, o.summary)) }),
  });
  await post('/cms-one/pages', {
    websiteId: site.id,
    locale: 'en',
    path: '/bound',
    title: 'Bound',
    published: true,
    content: page({
      ...list,
      props: { ...list.props, dataBinding: { classId: cls.id, orderBy: 'rank', dir: 'asc', limit: ITEMS } },
      children: [item('{{name}}', 0, '{{slug}}', '{{summary}}')].map((li) => ({
        ...li,
        children: [li.children[0], li.children[1], { type: 'small', text: 'Rank {{rank}}' }],
      })),
    }),
  });

  const accept = { accept: 'text/html' };
  const reqs = (path: string): PreparedRequest[] => [
    { method: 'GET', path: `/public/page/${root}${path}`, headers: accept },
  ];
  const body = async (url: string, path: string) => {
    const res = await fetch(`${url}/public/page/${root}${path}`, { headers: accept });
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    return (await res.text()).replace(/<title>[^<]*<\/title>/, '');
  };
  // Same bytes but the title: the binding draws exactly what the hand-written page holds.
  if ((await body(base, '/static')) !== (await body(base, '/bound'))) throw new Error('the two pages differ');

  const figures: Array<{ server: string; staticRead: LoadResult; boundRead: LoadResult }> = [];
  for (const [server, child] of [
    ['read cache on', cached],
    ['read cache off', uncached],
  ] as const) {
    const url = `http://127.0.0.1:${child.info.port}`;
    log(`${server}: warm-up`);
    await runLoad(url, reqs('/static'), { connections: 32, seconds: WARMUP });
    await runLoad(url, reqs('/bound'), { connections: 32, seconds: WARMUP });
    log(`${server}: measuring (static, bound, bound, static)`);
    const s1 = await runLoad(url, reqs('/static'), { connections: 32, seconds: SECONDS });
    const b1 = await runLoad(url, reqs('/bound'), { connections: 32, seconds: SECONDS });
    const b2 = await runLoad(url, reqs('/bound'), { connections: 32, seconds: SECONDS });
    const s2 = await runLoad(url, reqs('/static'), { connections: 32, seconds: SECONDS });
    figures.push({ server, staticRead: mean(s1, s2), boundRead: mean(b1, b2) });
  }

  const row = (name: string, r: LoadResult) =>
    `| ${name} | ${fmt(r.rps)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.non2xx} | ${r.errors} |`;
  const ratio = figures[0].boundRead.rps / figures[0].staticRead.rps;
  const met = ratio >= 0.5;
  console.log(
    [
      `# bench:content-bindings (${new Date().toISOString()})`,
      '',
      `Public page HTML, ${ITEMS} items; ${loadToolName()}, 32 connections, ${SECONDS}s per load, ABBA averaged.`,
      '',
      '| page | req/s | p50 ms | p99 ms | non-2xx | errors |',
      '|---|---|---|---|---|---|',
      ...figures.flatMap((f) => [
        row(`static, ${f.server}`, f.staticRead),
        row(`bound to ${ITEMS} objects, ${f.server}`, f.boundRead),
      ]),
      '',
      `${met ? 'PASS' : 'MISS'}: bound ≥ 0.5x static with the read cache (${fmt(ratio)}x); without it ${fmt(
        figures[1].boundRead.rps / figures[1].staticRead.rps,
      )}x`,
    ].join('\n'),
  );
  if (!met && process.env.BENCH_STRICT === '1') process.exitCode = 1;
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => cleanup());
