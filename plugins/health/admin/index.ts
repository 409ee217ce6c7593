import { IconHeartbeat } from '@tabler/icons-react';
import { defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

/** The health plugin's screen: readiness of the process and its database, audit losses. */
export default defineAdminScreens('health', [
  {
    id: 'health.status',
    path: 'health',
    label: 'Health',
    // GET /health is public; the screen is for the people who run the installation.
    permission: ['settings:manage', 'audit:read'],
    menu: { label: 'Health', group: 'System', order: 10, icon: IconHeartbeat },
    load: () => import('./Health.tsx'),
  },
]);
