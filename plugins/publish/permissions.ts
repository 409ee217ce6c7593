import type { PermissionDefinition } from '../../kernel/index.ts';

/** Queueing, cancelling and retrying static builds; reading them needs the broad `objects:read`. */
export const PUBLISH_PERMISSIONS: PermissionDefinition[] = [
  // The broad keys its routes check, shared with the other plugins that check them.
  { key: 'objects:read', description: 'Read content and structured data', shared: true },
  { key: 'objects:write', description: 'Create and change content; grants every function-level key', shared: true },
  {
    key: 'websites:publish',
    description: 'Queue, cancel and retry static builds of a website (publish jobs)',
    grantedBy: ['objects:write'],
  },
];
