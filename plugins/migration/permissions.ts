import type { PermissionDefinition } from '../../kernel/index.ts';

export const MIGRATION_MANAGE = 'migration:manage';

export const MIGRATION_PERMISSIONS: PermissionDefinition[] = [
  // The broad keys its routes check, shared with the other plugins that check them.
  { key: 'objects:publish', description: 'Publish content (while ENFORCE_PUBLISH_PERMISSION is on)', shared: true },
  {
    key: MIGRATION_MANAGE,
    description: 'Manage migration sources and run imports from them (importing classes needs data_classes:manage too)',
  },
];
