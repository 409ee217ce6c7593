import type { PermissionDefinition } from '../../kernel/index.ts';

/** The keys its routes check: broad keys shared with the other plugins that check them. */
export const IDENTITY_PERMISSIONS: PermissionDefinition[] = [
  { key: 'objects:write', description: 'Create and change content; grants every function-level key', shared: true },
  { key: 'settings:manage', description: 'Change workspace settings', shared: true },
  { key: 'users:manage', description: 'Manage users and roles' },
];
