import type { PermissionDefinition } from '../../kernel/index.ts';

/** The keys its routes check: broad keys shared with the other plugins that check them. */
export const AUDIT_PERMISSIONS: PermissionDefinition[] = [{ key: 'audit:read', description: 'Read the audit log' }];
