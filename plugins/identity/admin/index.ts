import { IconKey, IconLock, IconShieldLock, IconUserShield, IconUsers } from '@tabler/icons-react';
import { defineAdminScreens } from '../../admin-ui/app/src/sdk/index.ts';

/** The identity plugin's screens: users, roles, security settings and the user's own second factor. */
export default defineAdminScreens(
  'identity',
  [
    {
      id: 'identity.users',
      path: 'users',
      label: 'Users',
      permission: 'users:manage',
      menu: { label: 'Users', group: 'Administration', order: 10, icon: IconUsers },
      load: () => import('./UserList.tsx'),
    },
    {
      id: 'identity.user',
      path: 'users/:id',
      label: 'User',
      permission: 'users:manage',
      load: () => import('./UserEdit.tsx'),
    },
    {
      id: 'identity.roles',
      path: 'roles',
      label: 'Roles',
      permission: 'users:manage',
      menu: { label: 'Roles', group: 'Administration', order: 20, icon: IconUserShield },
      load: () => import('./RoleList.tsx'),
    },
    {
      id: 'identity.role',
      path: 'roles/:id',
      label: 'Role',
      permission: 'users:manage',
      load: () => import('./RoleEdit.tsx'),
    },
    {
      id: 'identity.security-settings',
      path: 'security-settings',
      label: 'Security settings',
      permission: 'settings:manage',
      menu: { label: 'Security settings', group: 'Administration', order: 30, icon: IconLock },
      load: () => import('./SecuritySettings.tsx'),
    },
    {
      id: 'identity.single-sign-on',
      path: 'single-sign-on',
      label: 'Single sign-on',
      // GET /oidc-settings needs users:manage; saving also needs every key (`*`), the screen says so.
      permission: 'users:manage',
      menu: { label: 'Single sign-on', group: 'Administration', order: 35, icon: IconKey },
      load: () => import('./SingleSignOn.tsx'),
    },
    {
      id: 'identity.account-security',
      path: 'account/security',
      label: 'Two-factor sign-in',
      session: true,
      menu: { label: 'Two-factor sign-in', group: 'Account', order: 90, icon: IconShieldLock },
      load: () => import('./AccountSecurity.tsx'),
    },
  ],
  [{ id: 'identity.counts', permission: 'users:manage', order: 10, load: () => import('./AccountCounts.tsx') }],
);
