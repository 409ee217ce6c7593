import { IconPhoto } from '@tabler/icons-react';
import { defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

/** The assets plugin's screens: the library (folders, uploads, one asset's details in a drawer). */
export default defineAdminScreens('assets', [
  {
    id: 'assets.library',
    path: 'assets',
    label: 'Asset library',
    permission: 'assets:read',
    menu: { label: 'Asset library', group: 'Assets', order: 10, icon: IconPhoto },
    load: () => import('./AssetLibrary.tsx'),
  },
]);
