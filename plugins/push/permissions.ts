import type { PermissionDefinition } from '../../kernel/index.ts';

export const PUSH_PERMISSIONS: PermissionDefinition[] = [
  { key: 'push:send', description: "Send push notifications to a website's subscribers" },
];
