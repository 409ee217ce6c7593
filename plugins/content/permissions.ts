import type { PermissionDefinition } from '../../kernel/index.ts';

/**
 * Function-level keys of the content routes. Each is also granted by the broad `objects:write` (the
 * spec's "objects:write overrides function keys"); reads need `objects:read`.
 */
export const CONTENT_PERMISSIONS: PermissionDefinition[] = [
  // The broad keys its routes check, shared with the other plugins that check them.
  { key: 'objects:read', description: 'Read content and structured data', shared: true },
  { key: 'objects:write', description: 'Create and change content; grants every function-level key', shared: true },
  { key: 'objects:publish', description: 'Publish content (while ENFORCE_PUBLISH_PERMISSION is on)', shared: true },
  { key: 'settings:manage', description: 'Change workspace settings', shared: true },
  { key: 'pages:edit', description: 'Create and change pages, thumbnails, staged pages', grantedBy: ['objects:write'] },
  { key: 'pages:delete', description: 'Delete pages and discard staged pages', grantedBy: ['objects:write'] },
  { key: 'snippets:edit', description: 'Create and change snippets, lock them', grantedBy: ['objects:write'] },
  { key: 'snippets:delete', description: 'Delete snippets', grantedBy: ['objects:write'] },
  { key: 'templates:edit', description: 'Create and change page templates and kits', grantedBy: ['objects:write'] },
  { key: 'templates:delete', description: 'Delete page templates and kits', grantedBy: ['objects:write'] },
  {
    key: 'websites:edit',
    description: 'Create and change websites, layouts, upload settings, site keys, website themes',
    grantedBy: ['objects:write'],
  },
  { key: 'websites:delete', description: 'Delete websites', grantedBy: ['objects:write'] },
  {
    key: 'menus:edit',
    description: 'Create, change and delete website paths (menu entries)',
    grantedBy: ['objects:write'],
  },
  { key: 'themes:edit', description: 'Create, change and delete global themes', grantedBy: ['objects:write'] },
  {
    key: 'content_settings:edit',
    description: 'Change editor settings (placeholder image, comments, logging, autosave, Alpine presets)',
    grantedBy: ['objects:write'],
  },
];
