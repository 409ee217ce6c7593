import { IconBook } from '@tabler/icons-react';
import { defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

/**
 * The documentation plugin's screen: a documentation website's documents with their warnings, a
 * preview of any document (private ones included), the nav file checked as you type, and a link to
 * the public site. Reading needs `objects:read`; the nav check `docs:edit`.
 */
export default defineAdminScreens('docs', [
  {
    id: 'docs.sites',
    path: 'docs',
    label: 'Documentation sites',
    permission: 'objects:read',
    menu: { label: 'Documentation sites', group: 'Content', order: 45, icon: IconBook },
    load: () => import('./DocsSites.tsx'),
  },
]);
