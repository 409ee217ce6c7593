import { IconHistory } from '@tabler/icons-react';
import { defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

/** The audit plugin's screen: the audit log with every filter of GET /audit-log and its CSV. */
export default defineAdminScreens(
  'audit',
  [
    {
      id: 'audit.log',
      path: 'audit-log',
      label: 'Audit log',
      permission: 'audit:read',
      menu: { label: 'Audit log', group: 'Administration', order: 40, icon: IconHistory },
      load: () => import('./AuditLog.tsx'),
    },
  ],
  [{ id: 'audit.recent', permission: 'audit:read', order: 20, load: () => import('./RecentActivity.tsx') }],
);
