import type { PermissionDefinition } from '../../kernel/index.ts';

/** The keys its routes check: broad keys shared with the other plugins that check them. */
export const FIGMA_PERMISSIONS: PermissionDefinition[] = [
  { key: 'settings:manage', description: 'Change workspace settings', shared: true },
];
