import { IconPackages } from '@tabler/icons-react';
import { defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

/** The bundles plugin's screen: export a website as a bundle, import one (dry run, then apply). */
export default defineAdminScreens('bundles', [
  {
    id: 'bundles.transfer',
    path: 'bundles',
    label: 'Website bundles',
    // Export needs objects:read, import objects:write; the screen offers what the keys allow.
    permission: ['objects:read', 'objects:write'],
    menu: { label: 'Website bundles', group: 'Content', order: 50, icon: IconPackages },
    load: () => import('./WebsiteBundles.tsx'),
  },
]);
