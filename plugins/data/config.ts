import { Type } from '@sinclair/typebox';
import { EnvFlag } from '../../kernel/index.ts';

/** The environment variables this plugin reads (its `pluginConfig`, typed and defaulted by the kernel). */
export const DataConfig = Type.Object({
  ENFORCE_PUBLISH_PERMISSION: EnvFlag(
    true,
    '1: publishing objects needs objects:publish; objects created without it are drafts',
  ),
  PUBLIC_DATA_RATE_LIMIT_PER_MINUTE: Type.Integer({
    minimum: 1,
    maximum: 1_000_000_000,
    default: 600,
    description: 'requests per client address and minute on /public/data-objects* (429 with Retry-After beyond)',
  }),
  PUBLIC_DATA_CACHE_CONTROL: Type.String({
    default: 'no-cache',
    maxLength: 200,
    pattern: '^[a-zA-Z0-9=,\\- ]+$',
    description:
      'Cache-Control of public data answers (they carry an ETag; no-cache = revalidate every time, a 304 when unchanged)',
  }),
  PUBLIC_DATA_READ_CACHE_BYTES: Type.Integer({
    minimum: 0,
    maximum: 4 * 1024 * 1024 * 1024,
    default: 64 * 1024 * 1024,
    description:
      'memory for public answers (objects by id, pages) kept between changes, per process; 0 turns the read cache off',
  }),
  DATA_MAX_OBJECT_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 16 * 1024 * 1024,
    default: 1024 * 1024,
    description:
      'largest attributes of one stored object, in bytes of JSON (413 OBJECT_TOO_LARGE beyond; a bulk row is rejected)',
  }),
  DATA_MAX_PAGE_BYTES: Type.Integer({
    minimum: 64 * 1024,
    maximum: 64 * 1024 * 1024,
    default: 4 * 1024 * 1024,
    description:
      'attribute bytes in one page of a list or query: the page stops there (at least one object) and answers hasMore',
  }),
  DATA_BULK_LOAD_HOLD_SECONDS: Type.Integer({
    minimum: 10,
    maximum: 7 * 24 * 3600,
    default: 900,
    description:
      'how long a bulk load (a large import) may leave a class without field indexes between two of its batches; past that, a build of them is due whether or not the load finishes',
  }),
});
