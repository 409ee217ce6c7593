import type { PermissionDefinition } from '../../kernel/index.ts';

export const MANAGE = 'object_events:manage';

export const OBJECT_EVENTS_PERMISSIONS: PermissionDefinition[] = [
  { key: MANAGE, description: 'Manage object event subscriptions and their delivery log' },
];
