import type { PermissionDefinition } from '../../kernel/index.ts';

/** `ai:use` is granted by `objects:write`, so the built-in editor role (and admin's `*`) holds it. */
export const AI_PERMISSIONS: PermissionDefinition[] = [
  {
    key: 'ai:use',
    description: 'Generate text, website structures and images with the AI provider; read past results',
    grantedBy: ['objects:write'],
  },
];
