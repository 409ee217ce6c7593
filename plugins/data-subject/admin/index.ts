import { IconUserSearch } from '@tabler/icons-react';
import { defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

/** The data-subject plugin's screen: find, export and erase what the installation holds about a person. */
export default defineAdminScreens('data-subject', [
  {
    id: 'data-subject.requests',
    path: 'data-subject',
    label: 'Data-subject requests',
    permission: 'data_subject:manage',
    menu: { label: 'Data-subject requests', group: 'Administration', order: 50, icon: IconUserSearch },
    load: () => import('./DataSubjectRequests.tsx'),
  },
]);
