import {
  DASHBOARD_ENTRY_PATHS,
  DASHBOARD_SCREENS_PREFIX,
  HASHED_NAME,
  IMMUTABLE,
  INDEX_HEADERS,
} from '../plugins/admin-ui/dashboard-routes.ts';
import {
  EDITOR_ENTRY,
  EDITOR_ENTRY_REDIRECTS,
  EDITOR_INDEX_HEADERS,
  EDITOR_PREFIX,
} from '../plugins/page-editor/editor-routes.ts';
import { EDGE_TABLE, UPSTREAMS, type EdgeRow, type Upstream } from './routes.ts';

/**
 * Renders `edge/nginx.conf` from the edge table (`edge/routes.ts`). The values that differ between
 * installations are inputs, read from the environment when the file is generated
 * (`npm run edge:config`); the committed file holds the defaults.
 *
 * Location rules: only exact (`=`) and prefix (`^~`) locations, no regular expressions. nginx picks
 * the longest matching prefix, and `^~` on every prefix means no regex location (should one ever be
 * added) can take a request away from it. `/public/upload-data/` therefore beats `/public`, and
 * `/cms-one/search` beats `/cms-one/`.
 */
export interface EdgeInputs {
  /** `listen` of the server: a port or address:port (EDGE_LISTEN). */
  listen: string;
  /** The one request body cap of the whole proxy, in nginx size notation (WS_MAX_BODY). */
  maxBody: string;
  /**
   * host:port of each upstream (EDGE_CORE_API, EDGE_ASSET_PROCESSOR, ...); several replicas as a
   * comma-separated list (`10.0.0.5:3003,10.0.0.6:3003`), one `server` line each in the upstream block.
   */
  upstreams: Record<Upstream, string>;
  /** nginx `worker_processes` (EDGE_WORKER_PROCESSES). */
  workerProcesses: string;
  /**
   * A folder for the pid file, logs and temporary files (EDGE_RUNTIME_DIR), for running nginx
   * without root-owned folders; unset: nginx's compiled-in places.
   */
  runtimeDir?: string;
  /**
   * The built admin dashboard (`plugins/admin-ui/dist`) for nginx to serve itself
   * (EDGE_ADMIN_DASHBOARD_ROOT); unset: the `admin-dashboard` upstream serves it.
   */
  adminDashboardRoot?: string;
  /**
   * The page editor's built page (`plugins/page-editor/dist`, its `index.html`) for nginx to serve
   * at `/cms-one/editor/...` (EDGE_EDITOR_ROOT); its script and styles are files of the dashboard's
   * build under `/assets/`. Unset: the `editor` upstream serves the rest of `/cms-one`.
   */
  editorRoot?: string;
  /**
   * A DNS server nginx asks again while running (EDGE_RESOLVER, e.g. Docker's 127.0.0.11), so an
   * upstream name lists every replica behind it, also those started later (`--scale`); unset: names
   * are resolved once at start, as the system resolver answers.
   */
  resolver?: string;
  /**
   * Addresses or CIDRs of a proxy in front of this one (EDGE_REAL_IP_FROM, comma-separated, e.g. a
   * Kubernetes Ingress controller's pod network): the client address is then taken from the
   * X-Forwarded-For they append, not their own; unset: nginx's peer is the client.
   */
  realIpFrom?: string[];
}

/** The environment variable of each upstream's address. */
export const UPSTREAM_ENV: Record<Upstream, string> = {
  'core-api': 'EDGE_CORE_API',
  'asset-processor': 'EDGE_ASSET_PROCESSOR',
  gateway: 'EDGE_GATEWAY',
  'admin-dashboard': 'EDGE_ADMIN_DASHBOARD',
  editor: 'EDGE_EDITOR',
};

/** The inputs of the committed `edge/nginx.conf`: the spec's ports on this host. */
export const DEFAULT_EDGE_INPUTS: EdgeInputs = Object.freeze({
  listen: '8000',
  maxBody: '100m',
  upstreams: Object.freeze({
    'core-api': '127.0.0.1:3003',
    'asset-processor': '127.0.0.1:3002',
    gateway: '127.0.0.1:3001',
    'admin-dashboard': '127.0.0.1:3000',
    editor: '127.0.0.1:3006',
  }),
  workerProcesses: 'auto',
});

export class EdgeInputError extends Error {}

const SIZE = /^[0-9]{1,9}[kKmMgG]?$/;
const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):[0-9]{1,5}$/;
const LISTEN = /^((\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):)?[0-9]{1,5}$/;
const WORKERS = /^(auto|[1-9][0-9]{0,2})$/;
const RESOLVER = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?$/;
/** An address rather than a name: nothing for a resolver to look up. */
const IP_LITERAL = /^(\[[0-9a-fA-F:.]+\]|[0-9.]+):[0-9]+$/;
const CIDR = /^[0-9a-fA-F:.]+(\/[0-9]{1,3})?$/;
const SAFE_PATH = /^\/[^\s";{}$\\]*$/;

/** Inputs from environment variables, each falling back to its default. */
export function edgeInputsFromEnv(env: NodeJS.ProcessEnv): EdgeInputs {
  const pick = (name: string, fallback: string) => (env[name] === undefined || env[name] === '' ? fallback : env[name]);
  const upstreams = Object.fromEntries(
    UPSTREAMS.map((u) => [u, pick(UPSTREAM_ENV[u], DEFAULT_EDGE_INPUTS.upstreams[u])]),
  ) as Record<Upstream, string>;
  return {
    listen: pick('EDGE_LISTEN', DEFAULT_EDGE_INPUTS.listen),
    maxBody: pick('WS_MAX_BODY', DEFAULT_EDGE_INPUTS.maxBody),
    upstreams,
    workerProcesses: pick('EDGE_WORKER_PROCESSES', DEFAULT_EDGE_INPUTS.workerProcesses),
    runtimeDir: env.EDGE_RUNTIME_DIR || undefined,
    adminDashboardRoot: env.EDGE_ADMIN_DASHBOARD_ROOT || undefined,
    editorRoot: env.EDGE_EDITOR_ROOT || undefined,
    resolver: env.EDGE_RESOLVER || undefined,
    realIpFrom: env.EDGE_REAL_IP_FROM ? env.EDGE_REAL_IP_FROM.split(',').map((a) => a.trim()) : undefined,
  };
}

function checkInputs(inputs: EdgeInputs): void {
  const fail = (name: string, value: string, expected: string) => {
    throw new EdgeInputError(`${name}: "${value}" is not ${expected}`);
  };
  if (!LISTEN.test(inputs.listen)) fail('EDGE_LISTEN', inputs.listen, 'a port or address:port');
  if (!SIZE.test(inputs.maxBody)) fail('WS_MAX_BODY', inputs.maxBody, 'a size such as 100m, 512k or 1g');
  if (!WORKERS.test(inputs.workerProcesses))
    fail('EDGE_WORKER_PROCESSES', inputs.workerProcesses, '"auto" or a number');
  for (const u of UPSTREAMS) {
    if (!serversOf(inputs.upstreams[u]).every((s) => HOST_PORT.test(s)))
      fail(UPSTREAM_ENV[u], inputs.upstreams[u], 'host:port, or a comma-separated list of them');
  }
  if (inputs.resolver !== undefined && !RESOLVER.test(inputs.resolver)) {
    fail('EDGE_RESOLVER', inputs.resolver, 'a host or address, with an optional :port');
  }
  for (const address of inputs.realIpFrom ?? []) {
    if (!CIDR.test(address)) fail('EDGE_REAL_IP_FROM', address, 'an address or CIDR');
  }
  if (inputs.runtimeDir !== undefined && !SAFE_PATH.test(inputs.runtimeDir)) {
    fail('EDGE_RUNTIME_DIR', inputs.runtimeDir, 'an absolute path without spaces, quotes, braces, "$" or ";"');
  }
  if (inputs.adminDashboardRoot !== undefined && !SAFE_PATH.test(inputs.adminDashboardRoot)) {
    fail(
      'EDGE_ADMIN_DASHBOARD_ROOT',
      inputs.adminDashboardRoot,
      'an absolute path without spaces, quotes, braces, "$" or ";"',
    );
  }
  if (inputs.editorRoot !== undefined && !SAFE_PATH.test(inputs.editorRoot)) {
    fail('EDGE_EDITOR_ROOT', inputs.editorRoot, 'an absolute path without spaces, quotes, braces, "$" or ";"');
  }
}

/** nginx location of one path in the table's notation: exact and/or prefix matches. */
export function locationsOf(path: string): string[] {
  if (path === '/') return ['^~ /'];
  if (path.endsWith('*')) return [`^~ ${path.slice(0, -1)}`];
  if (path.endsWith('/')) return [`^~ ${path}`];
  return [`= ${path}`, `^~ ${path}/`];
}

const upstreamName = (u: Upstream) => u.replace(/-/g, '_');

/** The replicas of one upstream input: `a:1` or `a:1,b:2` (spaces around commas allowed). */
const serversOf = (value: string) => value.split(',').map((s) => s.trim());

/** Headers every proxied request carries; repeated where a location sets headers of its own. */
const FORWARDED_HEADERS = [
  'proxy_set_header Connection "";',
  // The Host the client sent, port included, so a service comparing Origin with Host (same-origin
  // checks) sees what the browser saw.
  'proxy_set_header Host $cms_host;',
  // The proxy's own view of the client, never a value the client sent: behind TRUST_PROXY=1 the
  // services take the client address from this header.
  'proxy_set_header X-Forwarded-For $remote_addr;',
  'proxy_set_header X-Forwarded-Proto $scheme;',
  'proxy_set_header X-Forwarded-Host $cms_host;',
  'proxy_set_header X-Request-Id $cms_request_id;',
];

const KEEPALIVE: Record<Upstream, number> = {
  'core-api': 32,
  'asset-processor': 32,
  gateway: 32,
  'admin-dashboard': 8,
  editor: 8,
};

/** `head { ... }` with the body indented one level (nested blocks indent further). */
function block(head: string, body: string[]): string[] {
  return [`${head} {`, ...body.map((line) => (line ? `  ${line}` : '')), '}'];
}

/** MIME types of the dashboard's build (nginx's built-in list lacks JavaScript modules and fonts). */
const DASHBOARD_TYPES = block('types', [
  'text/html html;',
  'text/javascript js mjs;',
  'text/css css;',
  'application/json json map;',
  'image/svg+xml svg;',
  'image/png png;',
  'image/x-icon ico;',
  'font/woff2 woff2;',
  'font/woff woff;',
]);

const header = (name: string, value: string) => `add_header ${name} "${value}" always;`;

/**
 * The dashboard served by nginx from its build folder, as the admin-ui plugin serves it in one
 * process: `index.html` for the dashboard's own routes only (never cached, with its security
 * headers), hashed files of `/assets/` cached as immutable and gzipped, everything else 404.
 */
function dashboardLocations(root: string): string[] {
  const index = [
    `root "${root}";`,
    ...DASHBOARD_TYPES,
    ...Object.entries(INDEX_HEADERS).map(([name, value]) => header(name, value)),
    'try_files /index.html =404;',
  ];
  const exact = [...DASHBOARD_ENTRY_PATHS, DASHBOARD_SCREENS_PREFIX].map((p) => `location = ${p}`);
  return [
    '',
    "# the admin dashboard's own routes: its index.html from the build folder",
    ...[...exact, `location ^~ ${DASHBOARD_SCREENS_PREFIX}/`].flatMap((loc) => block(loc, index)),
  ];
}

/** `/assets/`: the build's files; hashed names are cached for a year. */
function dashboardAssets(root: string): string[] {
  return block('location ^~ /assets/', [
    `root "${root}";`,
    ...DASHBOARD_TYPES,
    'gzip on;',
    'gzip_vary on;',
    'gzip_types text/javascript text/css application/json image/svg+xml;',
    header('Cache-Control', '$cms_asset_cache'),
    header('X-Content-Type-Options', 'nosniff'),
    'try_files $uri =404;',
  ]);
}

/**
 * The page editor served by nginx from its build folder, as the page-editor plugin serves it in one
 * process: its `index.html` at `/cms-one/editor` and below (never cached, with its security
 * headers); any other path of the editor's row is a 404.
 */
function editorLocations(root: string): string[] {
  const index = [
    `root "${root}";`,
    ...DASHBOARD_TYPES,
    ...Object.entries(EDITOR_INDEX_HEADERS).map(([name, value]) => header(name, value)),
    'try_files /index.html =404;',
  ];
  return [
    ...block(`location = ${EDITOR_PREFIX}`, index),
    ...block(`location ^~ ${EDITOR_PREFIX}/`, index),
    "# /cms-one and /cms-one/: the editor's entry",
    ...EDITOR_ENTRY_REDIRECTS.map((path) => `location = ${path} { return 302 ${EDITOR_ENTRY}; }`),
    '# the rest of the editor row: nothing else is served there',
    'location ^~ /cms-one/ { return 404; }',
  ];
}

function rowLocations(row: EdgeRow, inputs: EdgeInputs): string[] {
  const root = inputs.adminDashboardRoot;
  if (inputs.editorRoot && row.upstream === 'editor') return editorLocations(inputs.editorRoot);
  if (row.websiteRoots) return websiteRootLocations(row, root);
  if (root && row.upstream === 'admin-dashboard' && row.paths.join() === '/assets/') return dashboardAssets(root);
  return row.paths
    .flatMap((path) => locationsOf(path))
    .flatMap((loc) => {
      if (row.upstream === null) return [`location ${loc} { return 404; }`];
      if (row.requestBuffering === false) {
        return block(`location ${loc}`, [
          'proxy_request_buffering off;',
          `proxy_pass http://${upstreamName(row.upstream)};`,
        ]);
      }
      return [`location ${loc} { proxy_pass http://${upstreamName(row.upstream)}; }`];
    });
}

/**
 * `/`: an auth_request subrequest asks core-api whether the first path segment is a website's root
 * path. 204: the request is a website preview, passed to core-api's public page route with the whole
 * original URI (`/shop/about?x=1` becomes `/public/page/shop/about?x=1`). 403, or no usable answer
 * (core-api down or without the route): the admin dashboard.
 */
function websiteRootLocations(row: EdgeRow, dashboardRoot: string | undefined): string[] {
  const roots = row.websiteRoots!;
  const checkLocation = `/_edge${roots.check.path}`;
  const fallback = `@${upstreamName(roots.fallback)}`;
  return [
    ...block(`location ${locationsOf(row.paths[0])[0]}`, [
      `auth_request ${checkLocation};`,
      // auth_request turns 401 and 403 into that status and any other answer into 500.
      `error_page 401 403 500 = ${fallback};`,
      `proxy_pass http://${upstreamName(roots.upstream)}${roots.pathPrefix}$request_uri;`,
    ]),
    ...block(`location = ${checkLocation}`, [
      'internal;',
      'proxy_method GET;',
      'proxy_pass_request_body off;',
      'proxy_set_header Content-Length "";',
      'proxy_set_header X-Original-URI $request_uri;',
      ...FORWARDED_HEADERS,
      `proxy_pass http://${upstreamName(roots.check.upstream)}${roots.check.path};`,
    ]),
    // With the dashboard served from its folder, its routes have locations of their own (above):
    // what reaches the fallback is no website and no dashboard route.
    ...block(`location ${fallback}`, [
      dashboardRoot && roots.fallback === 'admin-dashboard'
        ? 'return 404;'
        : `proxy_pass http://${upstreamName(roots.fallback)};`,
    ]),
    ...(dashboardRoot && roots.fallback === 'admin-dashboard' ? dashboardLocations(dashboardRoot) : []),
  ];
}

/** Refuses a table that names one location twice (nginx would refuse to start). */
function checkTable(rows: readonly EdgeRow[]): void {
  const seen = new Set<string>();
  for (const loc of rows.flatMap((row) => row.paths.flatMap((p) => locationsOf(p)))) {
    if (seen.has(loc)) throw new Error(`edge table: location "${loc}" appears twice`);
    seen.add(loc);
  }
}

/**
 * The request paths the proxy refuses with 400 before routing: the spellings `kernel/request-path.ts`
 * refuses in every service. nginx picks a location on its own normalised reading of the path (`..`
 * resolved, `%2e` and `%2f` decoded) but forwards the path as the client sent it, so a path whose
 * readings differ could be routed by one and served by another; refusing those leaves one reading.
 * Written without backslashes (`[.]`, `\x5c`), which nginx's quoted strings would otherwise unescape.
 */
export function refusedPathPattern(): string {
  // One percent-decoding, as nginx and the services read a path; `%252e` is a literal `%2e` to both.
  const enc = (hex: string) => `%${hex}`;
  // A control character ends a segment too: `..%00` is `..` to a reader that stops at NUL.
  const control = enc('(?:[01][0-9a-f]|7f)');
  const separator = `(?:/|\\x5c|${enc('2f')}|${enc('5c')}|${control})`;
  const dot = `(?:[.]|${enc('2e')})`;
  const segmentEnd = `(?:[/;?#]|\\x5c|${['2f', '5c', '3b', '3f', '23'].map(enc).join('|')}|${control}|$)`;
  const refused = [
    `${separator}${dot}{1,2}${segmentEnd}`, // a dot segment
    '\\x5c', // a raw backslash
    `${enc('c[01]')}|${enc('e0')}${enc('[89]')}|${enc('f0')}${enc('8')}`, // overlong UTF-8
  ];
  return `^[^?]*(?:${refused.join('|')})`;
}

const HEADER = `# GENERATED by \`npm run edge:config\` from the edge table in edge/routes.ts; do not edit by hand
# (a test fails when this file and the table disagree).
#
# Reverse proxy for the split deployment: core-api, asset-processor and gateway as separate
# processes, plus the admin-dashboard and editor static applications. The all-in-one process
# (\`npm start\`, port 3000) answers the same paths itself and needs no proxy.
#
# Inputs, read from the environment when generating (the committed file holds the defaults):
#   WS_MAX_BODY (100m)  EDGE_LISTEN (8000)  EDGE_WORKER_PROCESSES (auto)  EDGE_RUNTIME_DIR (unset)
#   EDGE_CORE_API (127.0.0.1:3003)  EDGE_ASSET_PROCESSOR (127.0.0.1:3002)  EDGE_GATEWAY (127.0.0.1:3001)
#   EDGE_ADMIN_DASHBOARD (127.0.0.1:3000)  EDGE_EDITOR (127.0.0.1:3006)
#   Each upstream may list several replicas, comma-separated: EDGE_CORE_API=10.0.0.5:3003,10.0.0.6:3003
#   EDGE_RESOLVER (unset: upstream names resolved once at start; set to a DNS server, e.g. Docker's
#     127.0.0.11: nginx re-resolves them every 10 s, so each name lists every replica; nginx >= 1.27.3)
#   EDGE_REAL_IP_FROM (unset; CIDRs of a proxy in front, e.g. an Ingress controller: the client address
#     is then read from their X-Forwarded-For)
#   EDGE_ADMIN_DASHBOARD_ROOT (unset: proxied to EDGE_ADMIN_DASHBOARD; set to the built dashboard,
#     e.g. $PWD/plugins/admin-ui/dist: nginx serves it itself, index.html only for its own routes)
#   EDGE_EDITOR_ROOT (unset: the rest of /cms-one proxied to EDGE_EDITOR; set to the built editor,
#     e.g. $PWD/plugins/page-editor/dist: nginx serves its index.html at /cms-one/editor/...)
# e.g.  WS_MAX_BODY=200m EDGE_CORE_API=core-api:3003 npm run edge:config -- --out /etc/nginx/nginx.conf
#
# Run:  nginx -c "$PWD/edge/nginx.conf"  (needs the auth_request module, built into Debian's nginx)
#
# Locations are exact (=) or prefix (^~) only: the longest prefix wins and no regular expression can
# override it. \`/\` asks core-api GET /site-root (X-Original-URI) whether the first path segment is a
# website's root path: 204 -> website preview from core-api's /public/page/<path>; otherwise the
# admin dashboard. /metrics is not routed. A path with a dot segment in any spelling, a backslash or
# overlong UTF-8 answers 400 before any location is chosen (the services refuse the same). Host goes
# through as the client sent it (port included, so same-origin checks compare like with like);
# X-Forwarded-For is the proxy's view of the client;
# X-Request-Id keeps a client's well-formed id ([A-Za-z0-9._:-]{1,128}), else nginx's $request_id.`;

/** The whole nginx.conf for these inputs. */
export function renderNginxConf(inputs: EdgeInputs, rows: readonly EdgeRow[] = EDGE_TABLE): string {
  checkInputs(inputs);
  checkTable(rows);
  const rt = inputs.runtimeDir;
  const main = [
    `worker_processes ${inputs.workerProcesses};`,
    ...(rt ? [`pid "${rt}/nginx.pid";`, `error_log "${rt}/error.log" warn;`] : []),
  ];
  const runtime = rt
    ? [
        `access_log "${rt}/access.log";`,
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `${t}_temp_path "${rt}/${t}_temp";`),
        '',
      ]
    : [];
  // With a resolver, a shared zone lets nginx re-resolve each name (every replica is one address of it).
  // Each listed replica is a `server` line: nginx balances round robin and, on a refused connection or
  // a timeout, takes the next one (see proxy_next_upstream below) and leaves the failed one out for 10 s.
  const upstreams = UPSTREAMS.map((u) => {
    const servers = serversOf(inputs.upstreams[u]).map((s) =>
      inputs.resolver && !IP_LITERAL.test(s) ? `server ${s} resolve;` : `server ${s};`,
    );
    const zone = inputs.resolver ? `zone ${upstreamName(u)} 64k; ` : '';
    return `upstream ${upstreamName(u)} { ${zone}${servers.join(' ')} keepalive ${KEEPALIVE[u]}; }`;
  });
  const locations = rows.flatMap((row) => ['', `# ${row.note}`, ...rowLocations(row, inputs)]);
  const server = [
    `listen ${inputs.listen};`,
    '',
    // One body cap for the whole proxy server (the spec's WS_MAX_BODY).
    `client_max_body_size ${inputs.maxBody};`,
    'if ($cms_path_refused) { return 400; }',
    'proxy_http_version 1.1;',
    // A replica that refuses, times out or answers 502/503 is skipped for the next one. nginx never
    // retries POST, PATCH or LOCK (no `non_idempotent`), nor once a request body has been streamed.
    'proxy_next_upstream error timeout http_502 http_503;',
    'proxy_next_upstream_tries 3;',
    ...FORWARDED_HEADERS,
    ...locations,
  ];
  const http = [
    'server_tokens off;',
    ...runtime,
    '# Paths with a dot segment in any spelling one decoding reveals (raw, %2e, with \\ or %5c, before ;',
    '# or %00), a backslash or overlong UTF-8: 400 before any location is chosen (edge/generate.ts).',
    'map $request_uri $cms_path_refused {',
    '  default 0;',
    `  "~*${refusedPathPattern()}" 1;`,
    '}',
    "# A client's X-Request-Id when it is a short token, else a fresh one.",
    'map $http_x_request_id $cms_request_id {',
    '  default $request_id;',
    '  "~^[A-Za-z0-9._:-]{1,128}$" $http_x_request_id;',
    '}',
    '# The Host header as the client sent it; a placeholder for an HTTP/1.0 client that sent none',
    '# (the services refuse a request without Host).',
    'map $http_host $cms_host {',
    '  default $http_host;',
    '  "" localhost;',
    '}',
    ...(inputs.adminDashboardRoot
      ? [
          "# Cache-Control of the dashboard's files: hashed names never change.",
          'map $uri $cms_asset_cache {',
          '  default "no-cache";',
          `  "~${HASHED_NAME.source}" "${IMMUTABLE}";`,
          '}',
        ]
      : []),
    ...(inputs.realIpFrom
      ? [
          '# The client address from the X-Forwarded-For of the trusted proxies in front (EDGE_REAL_IP_FROM).',
          ...inputs.realIpFrom.map((a) => `set_real_ip_from ${a};`),
          'real_ip_header X-Forwarded-For;',
          'real_ip_recursive on;',
        ]
      : []),
    ...(inputs.resolver ? [`resolver ${inputs.resolver} valid=10s ipv6=off;`] : []),
    '',
    ...upstreams,
    '',
    ...block('server', server),
  ];
  return [HEADER, '', ...main, 'events { worker_connections 1024; }', '', ...block('http', http), ''].join('\n');
}
