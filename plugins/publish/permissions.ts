import type { PermissionDefinition } from '../../kernel/index.ts';

/** Queueing, cancelling and retrying static builds; reading them needs the broad `objects:read`. */
export const PUBLISH_PERMISSIONS: PermissionDefinition[] = [
  {
    key: 'websites:publish',
    description: 'Queue, cancel and retry static builds of a website (publish jobs)',
    grantedBy: ['objects:write'],
  },
];
