import type { PermissionDefinition } from '../../kernel/index.ts';

/**
 * The documentation plugin's own key for its staff writes (`render`, `nav/check`). The rule
 * "writes need `pages:edit` or `objects:write`" is its `grantedBy`: holders of either pass, and the
 * plugin works without the content plugin's keys being loaded. Reads need the kernel's `objects:read`.
 */
export const DOCS_PERMISSIONS: PermissionDefinition[] = [
  // The broad keys its routes check, shared with the other plugins that check them.
  { key: 'objects:read', description: 'Read content and structured data', shared: true },
  { key: 'objects:write', description: 'Create and change content; grants every function-level key', shared: true },
  {
    key: 'docs:edit',
    description: 'Render documentation drafts and check nav files of documentation sites',
    grantedBy: ['objects:write', 'pages:edit'],
  },
];
