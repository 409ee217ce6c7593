import { IconDatabaseImport } from '@tabler/icons-react';
import { defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

/**
 * The migration plugin's screens: Pimcore sources with their connection test, the class mapping table
 * and class import, background object imports with their progress, and documents staged for review.
 * Every route needs migration:manage; each step hides what the user's other keys do not allow.
 */
const permission = 'migration:manage';

export default defineAdminScreens('migration', [
  {
    id: 'migration.sources',
    path: 'migration',
    label: 'Migration sources',
    permission,
    menu: { label: 'Migration from Pimcore', group: 'Data', order: 80, icon: IconDatabaseImport },
    load: () => import('./SourceList.tsx'),
  },
  {
    id: 'migration.source',
    path: 'migration/:id',
    label: 'Migration source',
    permission,
    load: () => import('./SourceSettings.tsx'),
  },
  {
    id: 'migration.classes',
    path: 'migration/:id/classes',
    label: 'Migration: classes',
    permission,
    load: () => import('./ClassPreview.tsx'),
  },
  {
    id: 'migration.objects',
    path: 'migration/:id/objects',
    label: 'Migration: objects',
    permission,
    load: () => import('./ObjectImport.tsx'),
  },
  {
    id: 'migration.documents',
    path: 'migration/:id/documents',
    label: 'Migration: documents',
    permission,
    load: () => import('./DocumentImport.tsx'),
  },
]);
