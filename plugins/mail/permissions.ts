import type { PermissionDefinition } from '../../kernel/index.ts';

export const MAIL_MANAGE = 'mail:manage';

export const MAIL_PERMISSIONS: PermissionDefinition[] = [
  { key: MAIL_MANAGE, description: 'Manage mail settings, templates and the mail log; send test mail' },
];
