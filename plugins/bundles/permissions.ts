import type { PermissionDefinition } from '../../kernel/index.ts';

/** The keys its routes check: broad keys shared with the other plugins that check them. */
export const BUNDLES_PERMISSIONS: PermissionDefinition[] = [
  { key: 'objects:read', description: 'Read content and structured data', shared: true },
  { key: 'objects:write', description: 'Create and change content; grants every function-level key', shared: true },
  { key: 'objects:publish', description: 'Publish content (while ENFORCE_PUBLISH_PERMISSION is on)', shared: true },
];
