import { IconShieldLock } from '@tabler/icons-react';
import { defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

/** The identity plugin's screens: the signed-in user's own second factor. */
export default defineAdminScreens('identity', [
  {
    id: 'identity.account-security',
    path: 'account/security',
    label: 'Two-factor sign-in',
    session: true,
    menu: { label: 'Two-factor sign-in', group: 'Account', order: 90, icon: IconShieldLock },
    load: () => import('./AccountSecurity.tsx'),
  },
]);
