/**
 * The reverse proxy's routing, as the specification's edge table states it ("Edge routing (reverse
 * proxy)"). This is the one place the table is written down: `edge/generate.ts` renders
 * `edge/nginx.conf` from it and the edge tests walk it.
 *
 * A path is written as in the spec and read like this:
 * - `/auth`: that segment and everything below it (`/auth`, `/auth/...`), never `/authors`;
 * - `/public/upload-data/`: everything below that prefix;
 * - `/data-*`: every first segment starting with `data-`.
 * The most specific (longest) path wins, whatever the order of the rows.
 */

/** The parts of the installation the proxy forwards to (the spec's "Runtime parts"). */
export type Upstream = 'core-api' | 'asset-processor' | 'gateway' | 'admin-dashboard' | 'editor';

export const UPSTREAMS: readonly Upstream[] = ['core-api', 'asset-processor', 'gateway', 'admin-dashboard', 'editor'];

export interface EdgeRow {
  /** Paths in the notation above. */
  paths: readonly string[];
  /** Where they go; `null` means not routed at all (404 from the proxy). */
  upstream: Upstream | null;
  /** Request bodies stream to the upstream as they arrive instead of being buffered first. */
  requestBuffering?: false;
  /**
   * `/` only: a request whose first path segment is a website's root path (`check` answers 204 for
   * its `X-Original-URI`) is a website preview, served by `upstream` under `pathPrefix`; any other
   * answer (403, or none at all) sends the request to `fallback`.
   */
  websiteRoots?: {
    check: { upstream: Upstream; path: string };
    upstream: Upstream;
    pathPrefix: string;
    fallback: Upstream;
  };
  /** Why the row is there, shown above its locations in nginx.conf. */
  note: string;
}

/**
 * Data routes of core-api under `/cms-one` (the spec's "core-api: editor content" table); every other
 * `/cms-one/...` path is the editor application.
 */
export const CMS_ONE_DATA_ROUTES: readonly string[] = [
  'snippets',
  'templates',
  'kits',
  'pages',
  'websites',
  'themes',
  'website-paths',
  'settings',
  'search',
  'drafts',
  'schedules',
];

export const EDGE_TABLE: readonly EdgeRow[] = [
  {
    paths: ['/'],
    upstream: 'admin-dashboard',
    // A website's pages are served by core-api's public page route, which takes the website's root
    // path from the first segment: `/shop/about?x=1` is answered by `/public/page/shop/about?x=1`.
    websiteRoots: {
      check: { upstream: 'core-api', path: '/site-root' },
      upstream: 'core-api',
      pathPrefix: '/public/page',
      fallback: 'admin-dashboard',
    },
    note: 'admin-dashboard, or a website preview when core-api GET /site-root answers 204 for the first path segment',
  },
  {
    paths: CMS_ONE_DATA_ROUTES.map((route) => `/cms-one/${route}`),
    upstream: 'core-api',
    note: 'core-api data routes under /cms-one',
  },
  { paths: ['/cms-one'], upstream: 'editor', note: 'the rest of /cms-one: the editor application' },
  {
    paths: [
      '/auth',
      '/documents',
      '/snippets',
      '/data-*',
      '/mail-*',
      '/public',
      '/ai',
      '/settings',
      '/users',
      '/roles',
      '/preview',
      '/health',
      '/audit-log',
      '/security-settings',
      '/oidc-settings',
      '/data-subject',
      '/mail-providers',
      '/docs-sites',
      '/object-event-*',
      '/pwa',
      '/publish/jobs',
      '/api/v1/system',
    ],
    upstream: 'core-api',
    note: 'core-api',
  },
  {
    // The edge table's list leaves these core-api endpoints out; without a row they would reach the
    // admin dashboard, where nothing answers them.
    paths: ['/migration-sources', '/figma'],
    upstream: 'core-api',
    note: "core-api endpoints of the spec's endpoint tables that the edge table does not list",
  },
  {
    paths: ['/public/upload-data/'],
    upstream: 'asset-processor',
    requestBuffering: false,
    note: 'form upload bytes stream to asset-processor (request buffering off)',
  },
  { paths: ['/api/v1/gateway/', '/api/remote/', '/client/v1/'], upstream: 'gateway', note: 'gateway' },
  { paths: ['/api/v1/'], upstream: 'asset-processor', note: 'the rest of /api/v1/: asset-processor' },
  {
    paths: ['/dam-asset/'],
    upstream: 'asset-processor',
    // No Cache-Control here: asset-processor decides per file (public files one year, private ones
    // never cached by shared caches).
    note: 'asset delivery; Cache-Control comes from asset-processor, per file',
  },
  { paths: ['/assets/'], upstream: 'admin-dashboard', note: 'static assets of the browser applications' },
  { paths: ['/metrics'], upstream: null, note: '/metrics is deliberately not routed' },
];
