import { performance } from 'node:perf_hooks';
import pg from 'pg';
import {
  ARTICLE_CLASS,
  ARTICLE_FIELDS,
  articleAttributes,
  BIG_CLASS,
  BIG_CLASS_FIELDS,
  bigClassObjects,
  makeArticles,
  OTHER_CLASS_FIELDS,
  otherClassName,
  otherClassObjects,
} from './fixtures.ts';
import { inParallel, type ProductApi } from './product-api.ts';
import type { SeededArticles } from './scenarios.ts';

/**
 * Everything is created through the product's public admin API (POST /data-classes, bulk create,
 * batch publish), so seeding keeps working whatever the storage layout is; only VACUUM ANALYZE runs
 * as SQL, database-wide, doing what autovacuum would do after a bulk load.
 */
const log = (...args: unknown[]) => console.error('[bench:data]', ...args);
const seconds = (since: number) => (performance.now() - since) / 1000;

export async function seedArticles(
  api: ProductApi,
  count: number,
  bulkSize: number,
): Promise<SeededArticles & { seconds: number }> {
  const started = performance.now();
  await api.createClass(ARTICLE_CLASS, ARTICLE_FIELDS);
  const articles = makeArticles(count);
  const ids: string[] = [];
  for (let i = 0; i < articles.length; i += bulkSize) {
    ids.push(
      ...(await api.bulkCreate(
        ARTICLE_CLASS,
        articles.slice(i, i + bulkSize).map((a) => ({ attributes: articleAttributes(a) })),
      )),
    );
  }
  await api.publish(ids.filter((_, i) => articles[i].published));
  return { articles, ids, seconds: seconds(started) };
}

/** `count` classes of ten indexed fields, each with `perClass` objects, half of them published. */
export async function seedOtherClasses(api: ProductApi, count: number, perClass: number): Promise<number> {
  const started = performance.now();
  for (let i = 1; i <= count; i++) {
    await api.createClass(otherClassName(i), OTHER_CLASS_FIELDS);
    if (i % 50 === 0) log(`  ${i} of ${count} classes created (${seconds(started).toFixed(0)} s)`);
  }
  if (perClass > 0) {
    log(`  ${count} classes created (${seconds(started).toFixed(0)} s); adding their objects`);
    await inParallel(count, 2, async (k) => {
      const objects = otherClassObjects(k + 1, perClass);
      const ids: string[] = [];
      for (let i = 0; i < objects.length; i += 500)
        ids.push(...(await api.bulkCreate(otherClassName(k + 1), objects.slice(i, i + 500))));
      await api.publish(ids.filter((_, n) => n % 2 === 0));
    });
  }
  return seconds(started);
}

export interface BigClass {
  classId: string;
  /** Published ids to read (the first 5,000 objects are published). */
  publishedIds: string[];
  seconds: number;
}

/** The big class, filled through bulk create by several concurrent callers. */
export async function seedBigClass(
  api: ProductApi,
  count: number,
  callers: number,
  bulkSize: number,
): Promise<BigClass> {
  const started = performance.now();
  const classId = await api.createClass(BIG_CLASS, BIG_CLASS_FIELDS);
  const calls = Math.ceil(count / bulkSize);
  const firstIds: string[] = [];
  let done = 0;
  await inParallel(calls, callers, async (call) => {
    const ids = await api.bulkCreate(
      BIG_CLASS,
      bigClassObjects(call * bulkSize, Math.min(bulkSize, count - call * bulkSize)),
    );
    if (call * bulkSize < 5000) firstIds.push(...ids);
    if (++done % Math.max(1, Math.floor(calls / 10)) === 0)
      log(`  big class: ${Math.min(done * bulkSize, count)} of ${count} objects (${seconds(started).toFixed(0)} s)`);
  });
  await api.publish(firstIds);
  return { classId, publishedIds: firstIds, seconds: seconds(started) };
}

/**
 * Working copies of `ids` (published articles): a publisher's `PATCH ?draft=true` of the body, so the
 * live rows stay as they are. `remove` discards them again (DELETE .../draft).
 */
export async function workingCopies(api: ProductApi, ids: readonly string[], remove = false): Promise<number> {
  const started = performance.now();
  await inParallel(ids.length, 8, async (i) => {
    if (remove) await api.expect(204, 'DELETE', `/data-objects/${ids[i]}/draft`);
    else
      await api.expect(200, 'PATCH', `/data-objects/${ids[i]}?draft=true`, {
        attributes: { body: `Working copy ${i}: a change prepared for days before it is published.` },
      });
  });
  return seconds(started);
}

/**
 * Puts the stored working copies aside (`present: false`, into `bench_drafts_aside`) or back, in one
 * statement, so reads with and without them can alternate on the same data without thousands of
 * API calls between runs. Public reads never read the working copies; this checks that they do not
 * pay for them either.
 */
export async function toggleWorkingCopies(url: string, present: boolean): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE TABLE IF NOT EXISTS bench_drafts_aside (LIKE data_object_drafts)');
    const [from, to] = present
      ? ['bench_drafts_aside', 'data_object_drafts']
      : ['data_object_drafts', 'bench_drafts_aside'];
    await client.query(`WITH moved AS (DELETE FROM ${from} RETURNING *) INSERT INTO ${to} SELECT * FROM moved`);
    await client.query('VACUUM (ANALYZE) data_object_drafts');
  } finally {
    await client.end();
  }
}

/** VACUUM (ANALYZE) of the whole database: statistics and visibility maps, as a settled installation has. */
export async function settle(url: string): Promise<number> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('VACUUM (ANALYZE)');
  } finally {
    await client.end();
  }
  return seconds(started);
}
