import type { MountedRoutes } from '../../../kernel/index.ts';

/**
 * Paths the browser applications use on the same host (dashboard, editor, their files and sign-in).
 * The dashboard's screens and sign-in pages are answered by a catch-all route, so they are not among
 * the mounted roots: listed here, or a website could take `/admin` and hide the dashboard.
 */
const APPLICATION_PATHS = [
  'api',
  'auth',
  'assets',
  'login',
  'settings',
  'cms-one',
  'editor',
  'admin',
  'sign-in',
  'forgot-password',
  'reset-password',
];

/**
 * First path segments the interface spec gives to the product whether or not this process mounts
 * them: routes of another service (`client` is the gateway's) and of parts not installed here. A
 * trailing `*` reserves every segment with that prefix. Whatever a process does mount is reserved
 * through the kernel's `mountedRoutes` without a change here; `test/edge/reserved-roots.test.ts`
 * checks that every path the reverse proxy routes to a service is refused as a website root.
 */
const SPEC_PATHS = [
  'client',
  'public',
  'documents',
  'snippets',
  'data-*',
  'mail-*',
  'ai',
  'users',
  'roles',
  'preview',
  'health',
  'metrics',
  'audit-log',
  'security-settings',
  'oidc-settings',
  'data-subject',
  'mail-providers',
  'docs-sites',
  'object-event-*',
  'pwa',
  'publish',
  'migration-sources',
  'figma',
  'dam-asset',
];

const EXACT = new Set([...APPLICATION_PATHS, ...SPEC_PATHS.filter((p) => !p.endsWith('*'))]);
const PREFIXES = SPEC_PATHS.filter((p) => p.endsWith('*')).map((p) => p.slice(0, -1));

/**
 * True when `segment` (a website root path without slashes) is a path the host uses: a browser
 * application's, one the spec gives to the product, or the first segment of a route this process mounts.
 */
export function isReservedRoot(segment: string, mounted: MountedRoutes): boolean {
  const s = segment.toLowerCase();
  return EXACT.has(s) || PREFIXES.some((prefix) => s.startsWith(prefix)) || mounted.hasRoot(s);
}
