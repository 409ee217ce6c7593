import { runLoad, type LoadResult, type PreparedRequest } from '../lib/load.ts';
import type { ProductApi } from './product-api.ts';
import type { ReadScenario } from './scenarios.ts';
import { SETTINGS } from './settings.ts';

const log = (...args: unknown[]) => console.error('[bench:data]', ...args);

export interface ReadResult {
  key: string;
  label: string;
  product: LoadResult;
  baseline: LoadResult;
  /** What the product answered (cached reads: 304 or 200). */
  note?: string;
}

export interface Servers {
  productUrl: string;
  baselineUrl: string;
}

/** Warm-up, then the measured run, for one side. */
async function measureSide(baseUrl: string, requests: readonly PreparedRequest[]): Promise<LoadResult> {
  const opts = { connections: SETTINGS.connections };
  if (SETTINGS.warmupSeconds > 0) await runLoad(baseUrl, requests, { ...opts, seconds: SETTINGS.warmupSeconds });
  return runLoad(baseUrl, requests, { ...opts, seconds: SETTINGS.seconds });
}

/** Two runs of the same scenarios averaged (req/s and percentiles), counts added. */
export function meanReads(a: readonly ReadResult[], b: readonly ReadResult[]): ReadResult[] {
  const mean = (x: LoadResult, y: LoadResult): LoadResult => ({
    ...x,
    rps: (x.rps + y.rps) / 2,
    p50: (x.p50 + y.p50) / 2,
    p99: (x.p99 + y.p99) / 2,
    requests: x.requests + y.requests,
    non2xx: x.non2xx + y.non2xx,
    errors: x.errors + y.errors,
  });
  return a.map((r) => {
    const other = b.find((o) => o.key === r.key)!;
    return { ...r, product: mean(r.product, other.product), baseline: mean(r.baseline, other.baseline) };
  });
}

/** Each scenario on the product, then on the baseline, back to back. */
export async function measureReads(
  servers: Servers,
  scenarios: readonly ReadScenario[],
  phase: string,
): Promise<ReadResult[]> {
  const out: ReadResult[] = [];
  for (const s of scenarios) {
    log(`${phase}: ${s.label} (${SETTINGS.warmupSeconds} s warm-up + ${SETTINGS.seconds} s, product then baseline)`);
    const product = await measureSide(servers.productUrl, s.product);
    const baseline = await measureSide(servers.baselineUrl, s.baseline);
    out.push({ key: s.key, label: s.label, product, baseline, note: s.note });
  }
  return out;
}

/**
 * Reads a cache can answer, reported apart from the others, against a second product process that
 * has the public read cache on (the main one runs without it, so the other figures are what a read
 * costs):
 * - conditional GET: `If-None-Match` with the ETag a first GET returned, over 1,000 ids (304);
 * - warm cache: plain GETs over the same 1,000 ids, every answer already cached;
 * - the same id over and over.
 * The baseline, which has no cache, answers the same ids with plain GETs.
 */
export async function cachedScenarios(api: ProductApi, ids: readonly string[]): Promise<ReadScenario[]> {
  const product: PreparedRequest[] = [];
  let withEtag = 0;
  for (const id of ids) {
    const first = await api.call('GET', `/public/data-objects/${id}`);
    if (first.status !== 200) throw new Error(`GET /public/data-objects/${id} answered ${first.status}`);
    const etag = first.headers.get('etag');
    if (etag) withEtag++;
    product.push({
      method: 'GET',
      path: `/public/data-objects/${id}`,
      headers: { 'If-None-Match': etag ?? '"bench-no-etag"' },
    });
  }
  const probe = await api.call('GET', product[0].path, undefined, product[0].headers);
  const note =
    withEtag === 0
      ? `answers ${probe.status} (no ETag sent)`
      : `answers ${probe.status} (${withEtag} of ${ids.length} GETs had an ETag)`;
  const baseline: PreparedRequest[] = ids.map((id) => ({ method: 'GET', path: `/articles/${id}` }));
  return [
    { key: 'conditional', label: 'conditional GET (If-None-Match)', product, baseline, note },
    {
      key: 'warm',
      label: `warm read cache, ${ids.length} ids`,
      product: ids.map((id) => ({ method: 'GET', path: `/public/data-objects/${id}` })),
      baseline,
      note: 'answers 200',
    },
    {
      key: 'sameId',
      label: 'same id repeated',
      product: [{ method: 'GET', path: `/public/data-objects/${ids[0]}` }],
      baseline: [{ method: 'GET', path: `/articles/${ids[0]}` }],
      note: `answers ${(await api.call('GET', `/public/data-objects/${ids[0]}`)).status}`,
    },
  ];
}
