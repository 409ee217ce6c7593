import { IconSearch } from '@tabler/icons-react';
import { defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

/** The search plugin's screen: full-text search across every indexed document, drafts included. */
export default defineAdminScreens('search', [
  {
    id: 'search.content',
    path: 'search',
    label: 'Search content',
    permission: 'objects:read',
    menu: { label: 'Search', group: 'Content', order: 5, icon: IconSearch },
    load: () => import('./SearchContent.tsx'),
  },
]);
