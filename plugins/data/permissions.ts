import type { PermissionDefinition } from '../../kernel/index.ts';

/**
 * Function-level keys of the data routes. The spec's broad keys keep working through `grantedBy`:
 * objects:read reads, objects:write reads and writes. Publishing is checked in the services against
 * the shared key objects:publish (while ENFORCE_PUBLISH_PERMISSION is on).
 */
export const DATA_KEYS = {
  classesRead: 'data_classes:read',
  classesManage: 'data_classes:manage',
  objectsRead: 'data_objects:read',
  objectsWrite: 'data_objects:write',
} as const;

export const DATA_PERMISSIONS: PermissionDefinition[] = [
  // The broad keys its routes check, shared with the other plugins that check them.
  { key: 'objects:read', description: 'Read content and structured data', shared: true },
  { key: 'objects:write', description: 'Create and change content; grants every function-level key', shared: true },
  { key: 'objects:publish', description: 'Publish content (while ENFORCE_PUBLISH_PERMISSION is on)', shared: true },
  {
    key: DATA_KEYS.classesRead,
    description: 'Read class and component definitions',
    grantedBy: ['objects:read', 'objects:write'],
  },
  {
    key: DATA_KEYS.classesManage,
    description: 'Create, change, empty and delete classes and components',
    grantedBy: ['objects:write'],
  },
  {
    key: DATA_KEYS.objectsRead,
    description: 'Read data objects, drafts included',
    grantedBy: ['objects:read', 'objects:write'],
  },
  { key: DATA_KEYS.objectsWrite, description: 'Create, change and delete data objects', grantedBy: ['objects:write'] },
];
