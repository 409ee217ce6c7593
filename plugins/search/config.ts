import { Type } from '@sinclair/typebox';

/** The environment variables this plugin reads (its `pluginConfig`, typed and defaulted by the kernel). */
export const SearchConfig = Type.Object({
  PUBLIC_SEARCH_RATE_LIMIT_PER_MINUTE: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 600,
    description: 'requests per client address and minute on /public/search (429 with Retry-After beyond)',
  }),
  PUBLIC_SEARCH_CACHE_CONTROL: Type.String({
    default: 'no-cache',
    maxLength: 200,
    pattern: '^[a-zA-Z0-9=,\\- ]+$',
    description:
      'Cache-Control of /public/search answers (they carry an ETag; no-cache = revalidate every time, a 304 when unchanged)',
  }),
  SEARCH_BODY_MAX_CHARS: Type.Integer({
    minimum: 1000,
    maximum: 1_000_000,
    default: 20_000,
    description: 'characters of a document body kept in the search index (the rest is not searchable)',
  }),
  SEARCH_RANK_CANDIDATES: Type.Integer({
    minimum: 100,
    maximum: 100_000,
    default: 500,
    description: 'matching documents ranked per query; a query matching more ranks the first ones the index returns',
  }),
});
