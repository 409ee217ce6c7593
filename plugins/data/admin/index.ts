import { IconBox, IconDatabase, IconFiles } from '@tabler/icons-react';
import { defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

/**
 * The data plugin's screens: classes (fields, translations, workflow, retention), components and
 * objects (list with filters, sort and keyset pages; edit form from the class; languages side by
 * side; publishing, transitions, preview links; bulk actions and CSV import).
 */
export default defineAdminScreens('data', [
  {
    id: 'data.classes',
    path: 'data/classes',
    label: 'Data classes',
    permission: 'data_classes:read',
    menu: { label: 'Data classes', group: 'Data', order: 20, icon: IconDatabase },
    load: () => import('./ClassList.tsx'),
  },
  {
    id: 'data.class',
    path: 'data/classes/:id',
    label: 'Data class',
    permission: 'data_classes:read',
    load: () => import('./ClassEdit.tsx'),
  },
  {
    id: 'data.components',
    path: 'data/components',
    label: 'Components',
    permission: 'data_classes:read',
    menu: { label: 'Components', group: 'Data', order: 30, icon: IconBox },
    load: () => import('./ComponentList.tsx'),
  },
  {
    id: 'data.component',
    path: 'data/components/:id',
    label: 'Component',
    permission: 'data_classes:read',
    load: () => import('./ComponentEdit.tsx'),
  },
  {
    id: 'data.objects',
    path: 'data/objects',
    label: 'Objects',
    permission: 'data_objects:read',
    menu: { label: 'Objects', group: 'Data', order: 10, icon: IconFiles },
    load: () => import('./ObjectList.tsx'),
  },
  {
    id: 'data.object',
    path: 'data/objects/:id',
    label: 'Object',
    permission: 'data_objects:read',
    load: () => import('./ObjectEdit.tsx'),
  },
]);
