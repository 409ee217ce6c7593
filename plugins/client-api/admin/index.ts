import { IconKey } from '@tabler/icons-react';
import { defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

/** The client-api plugin's screens: API clients of `/client/v1` and their keys. */
export default defineAdminScreens('client-api', [
  {
    id: 'client-api.clients',
    path: 'gateway/clients',
    label: 'API clients',
    permission: 'gateway:manage',
    menu: { label: 'API clients and keys', group: 'Integrations', order: 20, icon: IconKey },
    load: () => import('./ClientList.tsx'),
  },
  {
    id: 'client-api.client',
    path: 'gateway/clients/:id',
    label: 'API client',
    permission: 'gateway:manage',
    load: () => import('./ClientDetail.tsx'),
  },
]);
