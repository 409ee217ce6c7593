import { Type } from '@sinclair/typebox';
import { EnvFlag } from '../../kernel/index.ts';

/** The environment variables this plugin reads (its `pluginConfig`, typed and defaulted by the kernel). */
export const ContentConfig = Type.Object({
  ENFORCE_PUBLISH_PERMISSION: EnvFlag(true, '1: publishing or unpublishing a page needs objects:publish'),
  PUBLIC_CONTENT_RATE_LIMIT_PER_MINUTE: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 600,
    description: 'requests per client address and minute on the public content routes (429 with Retry-After beyond)',
  }),
  PUBLIC_CONTENT_CACHE_CONTROL: Type.String({
    default: 'no-cache',
    maxLength: 200,
    pattern: '^[a-zA-Z0-9=,\\- ]+$',
    description: 'Cache-Control of public content answers (they carry an ETag; a 304 when unchanged)',
  }),
  CONTENT_MAX_TREE_BYTES: Type.Integer({
    minimum: 16 * 1024,
    maximum: 16 * 1024 * 1024,
    default: 2 * 1024 * 1024,
    description: 'largest node tree of one page, snippet, template or layout region, in bytes of JSON (400 beyond)',
  }),
});
