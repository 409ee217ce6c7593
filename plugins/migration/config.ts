import { Type } from '@sinclair/typebox';

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
});
