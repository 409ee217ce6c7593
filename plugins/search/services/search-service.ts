import type { Db } from '../../../kernel/index.ts';
import { configsInUse } from '../store/document-store.ts';
import { searchDocuments, type SearchFilters } from '../store/search-query.ts';
import { normalisedTsquery } from '../store/server-text.ts';
import type { LocaleConfigs } from './locale-configs.ts';
import { firstPositiveWord, toTsquerySource } from './query-text.ts';
import { markedToHtml } from './snippets.ts';

export interface SearchRequest extends SearchFilters {
  q: string;
  limit: number;
  offset: number;
}

export interface SearchHit {
  sourceType: string;
  sourceId: string;
  websiteId: string | null;
  locale: string | null;
  /** Plain text. */
  title: string;
  /** HTML: the title escaped, matches in `<mark>`. */
  titleHtml: string;
  /** HTML: one escaped passage of the body (15 to 35 words around the best match), matches in `<mark>`. */
  snippet: string;
  url: string | null;
  public: boolean;
  meta: Record<string, unknown>;
  updatedAt: string;
  rank: number;
}

export interface SearchAnswer {
  results: SearchHit[];
  limit: number;
  offset: number;
  hasMore: boolean;
}

const TSQUERY_CACHE_SIZE = 1000;

/**
 * Answers searches. The user's text becomes a tsquery source (query-text.ts), normalised once per
 * configuration in play (the locale's, or every configuration documents use when no locale is given,
 * ORed), and the normalised tsquery is cached: a popular query costs one statement.
 */
export class SearchService {
  private readonly tsqueries = new Map<string, string>();
  private readonly configs = new Set<string>();
  private loaded: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    /** The public search's database: the read replica with DATABASE_READ_URL, else `db`. */
    private readonly readDb: Db,
    private readonly localeConfigs: LocaleConfigs,
    private readonly candidates: number,
  ) {}

  /** Reads the configurations documents use, once, on the first search (not in processes that never search). */
  private loadConfigs(): Promise<void> {
    this.loaded ??= configsInUse(this.db).then(
      (configs) => {
        for (const c of configs) this.configs.add(c);
      },
      (err: unknown) => {
        this.loaded = undefined;
        throw err;
      },
    );
    return this.loaded;
  }

  /** Documents were written with this configuration (the indexer tells, so queries without a locale cover it). */
  noteConfig(config: string): void {
    if (!this.configs.has(config)) {
      this.configs.add(config);
      this.tsqueries.clear();
    }
  }

  /** `from`: `replica` for the public route (the read replica when there is one), `primary` for staff. */
  async search(request: SearchRequest, from: 'replica' | 'primary' = 'primary'): Promise<SearchAnswer> {
    const empty = { results: [], limit: request.limit, offset: request.offset, hasMore: false };
    const source = toTsquerySource(request.q);
    if (source === null) return empty;
    if (request.locale === undefined) await this.loadConfigs();
    const configs =
      request.locale !== undefined ? [this.localeConfigs.configFor(request.locale)] : [...this.configs].sort();
    if (configs.length === 0) return empty;
    const tsquery = await this.normalised(source, configs);
    if (tsquery === '') return empty;
    const { hits, hasMore } = await searchDocuments(from === 'replica' ? this.readDb : this.db, tsquery, request, {
      limit: request.limit,
      offset: request.offset,
      candidates: this.candidates,
      snippetWord: firstPositiveWord(request.q),
    });
    return {
      results: hits.map((h) => ({
        sourceType: h.source_type,
        sourceId: h.source_id,
        websiteId: h.website_id || null,
        locale: h.locale || null,
        title: h.title,
        titleHtml: markedToHtml(h.title_marked),
        snippet: markedToHtml(h.snippet_marked ?? ''),
        url: h.url,
        public: h.public,
        meta: h.meta,
        updatedAt: new Date(h.updated_at).toISOString(),
        rank: Number(h.rank),
      })),
      limit: request.limit,
      offset: request.offset,
      hasMore,
    };
  }

  /** `to_tsquery` of our own source text for each configuration, ORed; '' when only stop words are left. */
  private async normalised(source: string, configs: string[]): Promise<string> {
    const key = `${configs.join(',')}\u0000${source}`;
    const cached = this.tsqueries.get(key);
    if (cached !== undefined) return cached;
    const q = await normalisedTsquery(this.db, source, configs);
    if (this.tsqueries.size >= TSQUERY_CACHE_SIZE) this.tsqueries.delete(this.tsqueries.keys().next().value!);
    this.tsqueries.set(key, q);
    return q;
  }
}
