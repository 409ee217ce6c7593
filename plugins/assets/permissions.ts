import type { PermissionDefinition } from '../../kernel/index.ts';

/**
 * Keys of the asset routes. `assets:upload` is the spec's key for storing files; the others are ours
 * (the spec leaves them open). The broad keys keep working: objects:read reads the library,
 * objects:write does everything an editor does with it.
 */
export const ASSET_KEYS = {
  read: 'assets:read',
  upload: 'assets:upload',
  manage: 'assets:manage',
  storage: 'assets:storage',
  process: 'assets:process',
} as const;

export const ASSET_PERMISSIONS: PermissionDefinition[] = [
  // The broad keys its routes check, shared with the other plugins that check them.
  { key: 'objects:read', description: 'Read content and structured data', shared: true },
  { key: 'objects:write', description: 'Create and change content; grants every function-level key', shared: true },
  { key: 'settings:manage', description: 'Change workspace settings', shared: true },
  {
    key: ASSET_KEYS.read,
    description: 'List and read assets, folders, URLs and presets',
    grantedBy: ['objects:read', 'objects:write', ASSET_KEYS.upload, ASSET_KEYS.manage],
  },
  {
    key: ASSET_KEYS.upload,
    description: 'Store files in the asset library, transform them, create folders',
    grantedBy: ['objects:write'],
  },
  {
    key: ASSET_KEYS.manage,
    description: 'Change, move and delete assets and folders; define image presets; CDN mirror copies',
    grantedBy: ['objects:write'],
  },
  { key: ASSET_KEYS.storage, description: 'Create the storage bucket (ensure-bucket)', grantedBy: ['settings:manage'] },
  {
    key: ASSET_KEYS.process,
    description: 'Resize, convert and read the metadata of images sent to /api/v1/process and /api/v1/metadata',
    grantedBy: ['objects:write', ASSET_KEYS.upload],
  },
];
