import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { runLoad, percentile, type LoadResult } from '../lib/load.ts';
import { ARTICLE_CLASS, articleAttributes, makeArticles } from './fixtures.ts';
import type { ProductApi } from './product-api.ts';
import type { BigClass } from './seed.ts';
import { SETTINGS } from './settings.ts';

const log = (...args: unknown[]) => console.error('[bench:data]', ...args);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Timings {
  calls: number;
  p50: number;
  p99: number;
}

const timings = (ms: number[]): Timings => ({ calls: ms.length, p50: percentile(ms, 50), p99: percentile(ms, 99) });

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** Sequential single creates of published articles (POST /data-objects), after ten warm-up calls. */
export async function singleCreates(api: ProductApi, count: number): Promise<Timings> {
  const articles = makeArticles(count + 10, 2, 's');
  const create = (i: number) =>
    api.expect(201, 'POST', '/data-objects', {
      className: ARTICLE_CLASS,
      published: true,
      attributes: articleAttributes(articles[i]),
    });
  for (let i = 0; i < 10; i++) await create(count + i);
  const ms: number[] = [];
  for (let i = 0; i < count; i++) ms.push(await timed(() => create(i)));
  return timings(ms);
}

/** Sequential bulk creates of `size` articles, after one warm-up call. */
export async function bulkCreates(api: ProductApi, calls: number, size: number): Promise<Timings> {
  const articles = makeArticles((calls + 1) * size, 3, 'b');
  const call = (i: number) =>
    api.bulkCreate(
      ARTICLE_CLASS,
      articles.slice(i * size, (i + 1) * size).map((a) => ({ attributes: articleAttributes(a) })),
    );
  await call(calls);
  const ms: number[] = [];
  for (let i = 0; i < calls; i++) ms.push(await timed(() => call(i)));
  return timings(ms);
}

export interface AddFieldResult {
  patchMs: number;
  status: number;
  /** From the PATCH's answer until PostgreSQL reported no index build any more (builds left to the background); null when none was seen. */
  backgroundBuildMs: number | null;
  /** Public get by id on the big class, without and during the change (PATCH and background builds). */
  readsBefore: LoadResult;
  readsDuring: LoadResult;
}

/**
 * Waits until PostgreSQL reports no CREATE INDEX running in the database (pg_stat_progress_create_index,
 * so it sees builds whatever starts them, e.g. CONCURRENTLY after the PATCH committed). Watches for at
 * least `minMs`, so a build that starts a moment after the answer is not missed.
 */
async function indexBuildsSettled(dbUrl: string, minMs: number, maxMs = 30 * 60_000): Promise<number | null> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  const started = performance.now();
  let lastSeen: number | null = null;
  try {
    while (performance.now() - started < maxMs) {
      const { rows } = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_progress_create_index WHERE datname = current_database()',
      );
      const now = performance.now() - started;
      if (rows[0].n > 0) lastSeen = now;
      else if (now >= minMs && (lastSeen === null || now - lastSeen >= 500)) return lastSeen;
      await sleep(100);
    }
    return lastSeen;
  } finally {
    await client.end();
  }
}

/**
 * Adds one text field to the big class (PATCH /data-classes/:id with the field list plus one) while
 * public gets by id of its objects run. The load starts a second before the PATCH and is interrupted
 * a second after the PATCH answered and PostgreSQL reports no index build any more, so its figures
 * cover the change, including index builds the product leaves to the background, and little else.
 */
export async function addFieldUnderLoad(api: ProductApi, big: BigClass, dbUrl: string): Promise<AddFieldResult> {
  const requests = big.publishedIds.map((id) => ({ method: 'GET' as const, path: `/public/data-objects/${id}` }));
  const opts = { connections: SETTINGS.connections };
  log(`big class: reads without a change (${SETTINGS.warmupSeconds} s warm-up + ${SETTINGS.seconds} s)`);
  if (SETTINGS.warmupSeconds > 0) await runLoad(api.baseUrl, requests, { ...opts, seconds: SETTINGS.warmupSeconds });
  const readsBefore = await runLoad(api.baseUrl, requests, { ...opts, seconds: SETTINGS.seconds });

  const { fields } = await api.expect<{ fields: unknown[] }>(200, 'GET', `/data-classes/${big.classId}`);
  let changed!: () => void;
  const changeDone = new Promise<void>((resolve) => (changed = resolve));
  log('big class: PATCH adding a field while reads run');
  const during = runLoad(api.baseUrl, requests, { ...opts, seconds: 3600, until: changeDone.then(() => sleep(1000)) });
  await sleep(1000);
  let status = 0;
  let patchMs = 0;
  let backgroundBuildMs: number | null = null;
  try {
    patchMs = await timed(async () => {
      status = (
        await api.call('PATCH', `/data-classes/${big.classId}`, { fields: [...fields, { name: 'note', type: 'text' }] })
      ).status;
    });
    backgroundBuildMs = await indexBuildsSettled(dbUrl, 2000);
  } finally {
    changed();
  }
  return { patchMs, status, backgroundBuildMs, readsBefore, readsDuring: await during };
}
