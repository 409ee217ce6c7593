import type { PermissionDefinition } from '../../kernel/index.ts';

/** The keys its routes check: broad keys shared with the other plugins that check them. */
export const SEARCH_PERMISSIONS: PermissionDefinition[] = [
  { key: 'objects:read', description: 'Read content and structured data', shared: true },
  { key: 'settings:manage', description: 'Change workspace settings', shared: true },
];
