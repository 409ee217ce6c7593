import { Type } from '@sinclair/typebox';

const GB = 1024 * 1024 * 1024;

/** Caps a website bundle is read under; a bundle past one is refused with 400 or 413 and nothing written. */
export const BundlesConfig = Type.Object({
  BUNDLE_MAX_BYTES: Type.Integer({
    default: 4 * GB,
    minimum: 1024,
    maximum: 64 * GB,
    description: 'largest website bundle (zip) an import receives, in bytes; larger: 413',
  }),
  BUNDLE_MAX_UNCOMPRESSED_BYTES: Type.Integer({
    default: 8 * GB,
    minimum: 1024,
    maximum: 128 * GB,
    description: 'sum of the uncompressed sizes of the entries of a bundle (zip bomb cap); more: 400',
  }),
  BUNDLE_MAX_ENTRIES: Type.Integer({
    default: 100_000,
    minimum: 1,
    maximum: 1_000_000,
    description: 'most entries a bundle may hold; more: 400',
  }),
  BUNDLE_MAX_RATIO: Type.Integer({
    default: 100,
    minimum: 2,
    maximum: 10_000,
    description: 'largest uncompressed/compressed ratio of an entry over 1 MiB (zip bomb cap); more: 400',
  }),
  BUNDLE_IMPORTS_PER_USER: Type.Integer({
    default: 1,
    minimum: 1,
    maximum: 100,
    description:
      'website imports (dry runs and applies) one user may run at once in a process; more: 429 with Retry-After',
  }),
  BUNDLE_IMPORTS_GLOBAL: Type.Integer({
    default: 2,
    minimum: 1,
    maximum: 100,
    description: 'website imports (dry runs and applies) a process runs at once; more: 503 with Retry-After',
  }),
  BUNDLE_IMPORT_TIME_BUDGET_MS: Type.Integer({
    default: 900_000,
    minimum: 1000,
    maximum: 86_400_000,
    description:
      'longest a website import may take, upload of the body included, in milliseconds; then it is stopped (503), nothing written',
  }),
});
