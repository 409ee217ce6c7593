import { IconBellRinging } from '@tabler/icons-react';
import { defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

/** The push plugin's screen: per website its VAPID public key, subscriber count and a send form. */
export default defineAdminScreens('push', [
  {
    id: 'push.notifications',
    path: 'push',
    label: 'Push notifications',
    permission: 'push:send',
    menu: { label: 'Push notifications', group: 'Content', order: 60, icon: IconBellRinging },
    load: () => import('./PushNotifications.tsx'),
  },
]);
