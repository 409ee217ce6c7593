import type { PermissionDefinition } from '../../kernel/index.ts';

export const MIGRATION_MANAGE = 'migration:manage';

export const MIGRATION_PERMISSIONS: PermissionDefinition[] = [
  {
    key: MIGRATION_MANAGE,
    description: 'Manage migration sources and run imports from them (importing classes needs data_classes:manage too)',
  },
];
