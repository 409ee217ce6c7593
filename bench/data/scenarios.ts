import type { PreparedRequest } from '../lib/load.ts';
import { seededRandom } from '../lib/random.ts';
import { ARTICLE_CLASS, type Article } from './fixtures.ts';

export type ReadKey = 'byId' | 'list' | 'slug';

/** One read, written out as the request lists product and baseline replay (same inputs, same order). */
export interface ReadScenario {
  key: string;
  label: string;
  product: PreparedRequest[];
  baseline: PreparedRequest[];
  /** What the product answered, when it matters (cached reads: 304 or 200). */
  note?: string;
}

export interface SeededArticles {
  articles: readonly Article[];
  /** Product ids in article order; the baseline table uses the same ids. */
  ids: readonly string[];
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const random = seededRandom(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const listBody = (from: string) =>
  JSON.stringify({
    className: ARTICLE_CLASS,
    filters: [{ field: 'title', op: 'gte', value: from }],
    orderBy: [{ field: 'title', direction: 'asc' }],
    limit: 20,
  });

/**
 * The three public reads measured, over published articles in a fixed random order:
 * - get by id: `GET /public/data-objects/:id`;
 * - list: 20 published articles sorted by title from a given title on. The public GET list filters
 *   but cannot sort, so this is `POST /public/data-objects/query` with a `title gte` filter and
 *   `orderBy title` (the baseline: `WHERE published AND title >= $1 ORDER BY title LIMIT 20`);
 * - slug filter: `GET /public/data-objects?className=Article&slug=x`.
 */
export function readScenarios({ articles, ids }: SeededArticles): Record<ReadKey, ReadScenario> {
  const published = shuffled(
    articles.map((a, i) => ({ ...a, id: ids[i] })).filter((a) => a.published),
    7,
  );
  return {
    byId: {
      key: 'byId',
      label: 'get by id',
      product: published.map((a) => ({ method: 'GET', path: `/public/data-objects/${a.id}` })),
      baseline: published.map((a) => ({ method: 'GET', path: `/articles/${a.id}` })),
    },
    list: {
      key: 'list',
      label: 'list 20 by title',
      product: published.map((a) => ({ method: 'POST', path: '/public/data-objects/query', body: listBody(a.title) })),
      baseline: published.map((a) => ({
        method: 'GET',
        path: `/articles?from=${encodeURIComponent(a.title)}&limit=20`,
      })),
    },
    slug: {
      key: 'slug',
      label: 'slug filter',
      product: published.map((a) => ({
        method: 'GET',
        path: `/public/data-objects?className=${ARTICLE_CLASS}&slug=${a.slug}`,
      })),
      baseline: published.map((a) => ({ method: 'GET', path: `/articles?slug=${a.slug}` })),
    },
  };
}

/** The first published ids of the read order (the cached-read scenarios use a sample of them). */
export function publishedIds(seeded: SeededArticles, count: number): string[] {
  return readScenarios(seeded)
    .byId.product.slice(0, count)
    .map((r) => r.path.split('/').pop()!);
}

type Json = Record<string, unknown>;
const slugOf = (o: Json) => ((o.attributes as Json | undefined)?.slug ?? o.slug) as string | undefined;
const objectsOf = (body: unknown) => (Array.isArray(body) ? body : ((body as Json).objects as Json[]));

async function send(baseUrl: string, r: PreparedRequest): Promise<unknown> {
  const res = await fetch(baseUrl + r.path, {
    method: r.method,
    headers: { ...r.headers, ...(r.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: r.body,
  });
  if (res.status !== 200)
    throw new Error(`${r.method} ${baseUrl}${r.path} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return res.json();
}

/**
 * Product and baseline must serve the same articles for the same input, or the comparison means
 * nothing: compares the slugs each answers (in order, for the list) on a few inputs per scenario.
 * Returns warnings for list order differences (a non-C collation on TEST_DATABASE_URL sorts titles
 * differently from the product's code-point order); anything else throws.
 */
export async function checkSameArticles(
  productUrl: string,
  baselineUrl: string,
  scenarios: Record<ReadKey, ReadScenario>,
): Promise<string[]> {
  const warnings: string[] = [];
  for (const s of Object.values(scenarios)) {
    for (const i of [0, 1, 2, Math.floor(s.product.length / 2), s.product.length - 1]) {
      const p = await send(productUrl, s.product[i]);
      const b = await send(baselineUrl, s.baseline[i]);
      const ps = s.key === 'byId' ? [slugOf(p as Json)] : objectsOf(p).map(slugOf);
      const bs = s.key === 'byId' ? [slugOf(b as Json)] : objectsOf(b).map(slugOf);
      if (JSON.stringify(ps) === JSON.stringify(bs)) continue;
      const sameSet = JSON.stringify([...ps].sort()) === JSON.stringify([...bs].sort());
      const message = `${s.label}, input ${i}: product answered ${JSON.stringify(ps.slice(0, 3))}..., baseline ${JSON.stringify(bs.slice(0, 3))}...`;
      if (s.key === 'list' && (sameSet || ps.length === bs.length))
        warnings.push(`${message} (title collation differs?)`);
      else throw new Error(`product and baseline serve different articles: ${message}`);
    }
  }
  return warnings;
}
