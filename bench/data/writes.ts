import { performance } from 'node:perf_hooks';
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
    api.expect(201, 'POST', '/data-objects', { className: ARTICLE_CLASS, published: true, attributes: articleAttributes(articles[i]) });
  for (let i = 0; i < 10; i++) await create(count + i);
  const ms: number[] = [];
  for (let i = 0; i < count; i++) ms.push(await timed(() => create(i)));
  return timings(ms);
}

/** Sequential bulk creates of `size` articles, after one warm-up call. */
export async function bulkCreates(api: ProductApi, calls: number, size: number): Promise<Timings> {
  const articles = makeArticles((calls + 1) * size, 3, 'b');
  const call = (i: number) => api.bulkCreate(ARTICLE_CLASS, articles.slice(i * size, (i + 1) * size).map((a) => ({ attributes: articleAttributes(a) })));
  await call(calls);
  const ms: number[] = [];
  for (let i = 0; i < calls; i++) ms.push(await timed(() => call(i)));
  return timings(ms);
}

export interface AddFieldResult {
  patchMs: number;
  status: number;
  /** Public get by id on the big class, without and during the PATCH. */
  readsBefore: LoadResult;
  readsDuring: LoadResult;
}

/**
 * Adds one text field to the big class (PATCH /data-classes/:id with the field list plus one) while
 * public gets by id of its objects run. The load starts a second before the PATCH and is interrupted
 * a second after it answered, so its figures cover the change and little else.
 */
export async function addFieldUnderLoad(api: ProductApi, big: BigClass): Promise<AddFieldResult> {
  const requests = big.publishedIds.map((id) => ({ method: 'GET' as const, path: `/public/data-objects/${id}` }));
  const opts = { connections: SETTINGS.connections };
  log(`big class: reads without a change (${SETTINGS.warmupSeconds} s warm-up + ${SETTINGS.seconds} s)`);
  if (SETTINGS.warmupSeconds > 0) await runLoad(api.baseUrl, requests, { ...opts, seconds: SETTINGS.warmupSeconds });
  const readsBefore = await runLoad(api.baseUrl, requests, { ...opts, seconds: SETTINGS.seconds });

  const { fields } = await api.expect<{ fields: unknown[] }>(200, 'GET', `/data-classes/${big.classId}`);
  let patched!: () => void;
  const patchDone = new Promise<void>((resolve) => (patched = resolve));
  log('big class: PATCH adding a field while reads run');
  const during = runLoad(api.baseUrl, requests, { ...opts, seconds: 900, until: patchDone.then(() => sleep(1000)) });
  await sleep(1000);
  let status = 0;
  const patchMs = await timed(async () => {
    status = (await api.call('PATCH', `/data-classes/${big.classId}`, { fields: [...fields, { name: 'note', type: 'text' }] })).status;
  }).finally(() => patched());
  return { patchMs, status, readsBefore, readsDuring: await during };
}
