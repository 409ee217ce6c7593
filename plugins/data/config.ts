import { Type } from '@sinclair/typebox';
import { EnvFlag } from '../../kernel/index.ts';

/** The environment variables this plugin reads (its `pluginConfig`, typed and defaulted by the kernel). */
export const DataConfig = Type.Object({
  ENFORCE_PUBLISH_PERMISSION: EnvFlag(true, '1: publishing objects needs objects:publish; objects created without it are drafts'),
  PUBLIC_DATA_RATE_LIMIT_PER_MINUTE: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 600,
    description: 'requests per client address and minute on /public/data-objects* (429 with Retry-After beyond)',
  }),
});
