import type { PermissionDefinition } from '../../kernel/index.ts';

/**
 * The documentation plugin's own key for its staff writes (`render`, `nav/check`). The rule
 * "writes need `pages:edit` or `objects:write`" is its `grantedBy`: holders of either pass, and the
 * plugin works without the content plugin's keys being loaded. Reads need the kernel's `objects:read`.
 */
export const DOCS_PERMISSIONS: PermissionDefinition[] = [
  {
    key: 'docs:edit',
    description: 'Render documentation drafts and check nav files of documentation sites',
    grantedBy: ['objects:write', 'pages:edit'],
  },
];
