import { IconWorldUpload } from '@tabler/icons-react';
import { defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

/** The publish plugin's screen: static builds of websites (queue, follow, cancel, retry, log). */
export default defineAdminScreens('publish', [
  {
    id: 'publish.jobs',
    path: 'publish',
    label: 'Static builds',
    permission: 'objects:read',
    menu: { label: 'Static builds', group: 'Content', order: 20, icon: IconWorldUpload },
    load: () => import('./PublishJobs.tsx'),
  },
]);
