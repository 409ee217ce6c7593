import { IconPlugConnected } from '@tabler/icons-react';
import { defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

/** The gateway plugin's screens: upstream endpoints, their routes and credentials. */
export default defineAdminScreens('gateway', [
  {
    id: 'gateway.endpoints',
    path: 'gateway/endpoints',
    label: 'Gateway endpoints',
    permission: 'gateway:manage',
    menu: { label: 'Gateway endpoints', group: 'Integrations', order: 10, icon: IconPlugConnected },
    load: () => import('./EndpointList.tsx'),
  },
  {
    id: 'gateway.endpoint-new',
    path: 'gateway/endpoints/new',
    label: 'New gateway endpoint',
    permission: 'gateway:manage',
    load: () => import('./EndpointNew.tsx'),
  },
  {
    id: 'gateway.endpoint',
    path: 'gateway/endpoints/:id',
    label: 'Gateway endpoint',
    permission: 'gateway:manage',
    load: () => import('./EndpointDetail.tsx'),
  },
]);
