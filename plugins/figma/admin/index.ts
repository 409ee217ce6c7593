import { IconBrandFigma, IconFileImport } from '@tabler/icons-react';
import { defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

/**
 * The figma plugin's screens: the access token (write-only, shown as set or not with its last four
 * characters) and the import (a link, a preview of the mapped page, a draft page with a link into
 * the page editor).
 */
export default defineAdminScreens('figma', [
  {
    id: 'figma.settings',
    path: 'figma/settings',
    label: 'Figma settings',
    permission: 'settings:manage',
    menu: { label: 'Figma', group: 'Integrations', order: 60, icon: IconBrandFigma },
    load: () => import('./FigmaSettings.tsx'),
  },
  {
    id: 'figma.import',
    path: 'figma/import',
    label: 'Import from Figma',
    permission: 'pages:edit',
    menu: { label: 'Import from Figma', group: 'Content', order: 60, icon: IconFileImport },
    load: () => import('./FigmaImport.tsx'),
  },
]);
