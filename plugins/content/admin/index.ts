import { IconWorld } from '@tabler/icons-react';
import { defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

/** The content plugin's screens: websites (pages, snippets, templates, themes and menus to follow). */
export default defineAdminScreens('content', [
  {
    id: 'content.websites',
    path: 'websites',
    label: 'Websites',
    permission: 'objects:read',
    menu: { label: 'Websites', group: 'Content', order: 10, icon: IconWorld },
    load: () => import('./WebsiteList.tsx'),
  },
]);
