import type { PermissionDefinition } from '../../kernel/index.ts';

export const SYSTEM_LOGS_KEY = 'system:logs';

export const SYSTEM_LOGS_PERMISSIONS: PermissionDefinition[] = [
  { key: SYSTEM_LOGS_KEY, description: 'Read the system logs (tail and download); they may hold personal data' },
];
