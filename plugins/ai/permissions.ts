import type { PermissionDefinition } from '../../kernel/index.ts';

/** `ai:use` is granted by `objects:write`, so the built-in editor role (and admin's `*`) holds it. */
export const AI_PERMISSIONS: PermissionDefinition[] = [
  // The broad keys its routes check, shared with the other plugins that check them.
  { key: 'objects:write', description: 'Create and change content; grants every function-level key', shared: true },
  { key: 'settings:manage', description: 'Change workspace settings', shared: true },
  {
    key: 'ai:use',
    description: 'Generate text, website structures and images with the AI provider; read past results',
    grantedBy: ['objects:write'],
  },
];
