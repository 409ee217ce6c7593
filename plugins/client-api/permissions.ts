import type { PermissionDefinition } from '../../kernel/index.ts';

/** The keys its routes check: broad keys shared with the other plugins that check them. */
export const CLIENT_API_PERMISSIONS: PermissionDefinition[] = [
  {
    key: 'gateway:manage',
    description: 'Manage gateway endpoints, routes and API clients (gateway and client-api plugins)',
    shared: true,
  },
];
