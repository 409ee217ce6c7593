import { type DocumentPolicy, documentHeaders } from '../../kernel/index.ts';

/**
 * The browser paths the page editor answers with its `index.html`: everything under
 * `/cms-one/editor` (`/cms-one/editor/pages/<id>`, `/cms-one/editor/snippets/<id>`). The edge table
 * sends the rest of `/cms-one/...` (all but the core-api data routes) to the editor; `editor` is not
 * one of those data routes, so the editor never shadows an API path
 * (`plugins/page-editor/test/serving.test.ts`).
 */
export const EDITOR_PREFIX = '/cms-one/editor';

/** The editor's entry (its tree of websites and their documents). */
export const EDITOR_ENTRY = `${EDITOR_PREFIX}/`;

/**
 * The exact paths that redirect to {@link EDITOR_ENTRY}: `/cms-one` and `/cms-one/` themselves (no
 * data route is mounted there; everything below them but `editor` is one).
 */
export const EDITOR_ENTRY_REDIRECTS = ['/cms-one', '/cms-one/'] as const;

/** True when `pathname` (no query) is one of the editor's own routes. */
export function isEditorRoute(pathname: string): boolean {
  return (
    pathname === EDITOR_PREFIX ||
    pathname.startsWith(`${EDITOR_PREFIX}/`) ||
    (EDITOR_ENTRY_REDIRECTS as readonly string[]).includes(pathname)
  );
}

/**
 * The policy of the editor's `index.html`: scripts and data from this origin only, never framed. The
 * canvas is a frame of the editor's own (`srcdoc`, so under this policy, no script allowed in it)
 * that may show the content's images and fonts from any https address.
 */
export const EDITOR_POLICY: DocumentPolicy = {
  'default-src': "'self'",
  'script-src': "'self'",
  'style-src': "'self' 'unsafe-inline'",
  'img-src': "'self' data: blob: https:",
  'font-src': "'self' data: https:",
  'connect-src': "'self'",
  'frame-src': "'self'",
  'frame-ancestors': "'none'",
  'base-uri': "'self'",
  'form-action': "'self'",
};

/**
 * Headers of the editor's `index.html`, wherever it is served (this plugin, or nginx): never cached
 * (it names the current hashed files of the shared build in `/assets/`), the kernel's document
 * headers of {@link EDITOR_POLICY}, no referrer outside this origin.
 */
export const EDITOR_INDEX_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  ...documentHeaders(EDITOR_POLICY),
  'referrer-policy': 'same-origin',
};
