import { IconBroadcast } from '@tabler/icons-react';
import { defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

/** The object-events plugin's screens: subscriptions and their delivery log. */
export default defineAdminScreens('object-events', [
  {
    id: 'object-events.subscriptions',
    path: 'events/subscriptions',
    label: 'Event subscriptions',
    permission: 'object_events:manage',
    menu: { label: 'Event subscriptions', group: 'Integrations', order: 30, icon: IconBroadcast },
    load: () => import('./SubscriptionList.tsx'),
  },
  {
    id: 'object-events.subscription',
    path: 'events/subscriptions/:id',
    label: 'Event subscription',
    permission: 'object_events:manage',
    load: () => import('./SubscriptionDetail.tsx'),
  },
]);
