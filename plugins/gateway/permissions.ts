import type { PermissionDefinition } from '../../kernel/index.ts';

/**
 * The administration key, shared: two plugins serve gateway administration, this one (endpoints,
 * routes) and client-api (API clients), and each declares it.
 */
export const GATEWAY_MANAGE = 'gateway:manage';

/** The keys its routes check: broad keys shared with the other plugins that check them. */
export const GATEWAY_PERMISSIONS: PermissionDefinition[] = [
  {
    key: 'gateway:manage',
    description: 'Manage gateway endpoints, routes and API clients (gateway and client-api plugins)',
    shared: true,
  },
];
