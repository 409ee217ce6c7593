import type { PluginDeps, RouteRateLimit } from '../../../kernel/index.ts';
import type { SearchSource } from '../ports.ts';
import type { SearchConfig } from '../config.ts';
import { Indexer } from './indexer.ts';
import { LocaleConfigs } from './locale-configs.ts';
import { reindex, type ReindexReport } from './reindex.ts';
import { SearchService } from './search-service.ts';

export type SearchDeps = PluginDeps<'db' | 'readDb' | 'recordHooks' | 'searchSources', never, typeof SearchConfig>;

export interface SearchServices {
  search: SearchService;
  indexer: Indexer;
  localeConfigs: LocaleConfigs;
  /** `GET /public/search` per client address (`config.rateLimit`). */
  rateLimit: RouteRateLimit;
  cacheControl: string;
  reindex(only?: string): Promise<ReindexReport>;
}

export async function createSearchServices(deps: SearchDeps): Promise<SearchServices> {
  const config = deps.pluginConfig;
  const localeConfigs = new LocaleConfigs();
  await localeConfigs.load(deps.db);
  const search = new SearchService(deps.db, deps.readDb, localeConfigs, config.SEARCH_RANK_CANDIDATES);
  const indexer = new Indexer({
    db: deps.db,
    recordHooks: deps.recordHooks,
    localeConfigs,
    bodyMaxChars: config.SEARCH_BODY_MAX_CHARS,
    log: deps.log,
    onConfig: (c) => search.noteConfig(c),
  });
  return {
    search,
    indexer,
    localeConfigs,
    rateLimit: {
      key: 'address',
      windowMs: 60_000,
      limit: config.PUBLIC_SEARCH_RATE_LIMIT_PER_MINUTE,
      message: 'Too many searches; try again later',
    },
    cacheControl: config.PUBLIC_SEARCH_CACHE_CONTROL,
    reindex: (only) => reindex(deps.db, indexer, deps.searchSources as readonly SearchSource[], only),
  };
}
