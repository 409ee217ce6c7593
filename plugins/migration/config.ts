import { Type } from '@sinclair/typebox';
import { EnvFlag } from '../../kernel/index.ts';

/** The environment variables this plugin reads (its `pluginConfig`, typed and defaulted by the kernel). */
export const MigrationConfig = Type.Object({
  MIGRATION_CLASS_FILE_MAX_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 50 * 1024 * 1024,
    default: 5 * 1024 * 1024,
    description: 'largest class definition file a migration source reads (400 CLASS_FILE_TOO_LARGE beyond)',
  }),
  MIGRATION_CONNECT_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 5_000,
    description: 'connect timeout to a migration source database',
  }),
  MIGRATION_IMPORT_BATCH_OBJECTS: Type.Integer({
    minimum: 1,
    maximum: 2000,
    default: 250,
    description: 'objects an import reads and writes per batch (one transaction and checkpoint each)',
  }),
  MIGRATION_IMPORT_BULK_MIN_OBJECTS: Type.Integer({
    minimum: 0,
    maximum: 1_000_000_000,
    default: 10_000,
    description:
      'objects of one class from which an import bulk loads it when the class here holds fewer: its field indexes are built once after its objects instead of row by row (0: never)',
  }),
  MIGRATION_IMPORT_INLINE_MAX_OBJECTS: Type.Integer({
    minimum: 0,
    maximum: 10_000_000,
    default: 1000,
    description:
      'most objects an import-objects without background: true takes, and most documents an import-documents takes (400 IMPORT_TOO_LARGE beyond)',
  }),
  MIGRATION_IMPORT_WORKER_ENABLED: EnvFlag(
    true,
    '0: this process starts background imports but does not work the `migration.object-imports` job queue (another process runs them)',
  ),
  MIGRATION_IMPORT_TRY_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 24 * 3600,
    default: 600,
    description:
      'how long one try of a background import runs before a fresh job goes on from its checkpoint; a try whose process died is taken back after it',
  }),
  MIGRATION_DEFAULT_LOCALE: Type.String({
    pattern: '^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$',
    default: 'en',
    description: 'language of imported objects without localized fields, and the first row of a translation group',
  }),
});
