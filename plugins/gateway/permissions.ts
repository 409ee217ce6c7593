import type { PermissionDefinition } from '../../kernel/index.ts';

export const GATEWAY_MANAGE = 'gateway:manage';

export const GATEWAY_PERMISSIONS: PermissionDefinition[] = [
  { key: GATEWAY_MANAGE, description: 'Manage gateway endpoints and routes, call them, import OpenAPI documents' },
];
