import { type DocumentPolicy, documentHeaders } from '../../kernel/index.ts';

/**
 * The browser paths the dashboard itself answers with its `index.html` (its client-side routes).
 * Nothing else falls back to the app: an unknown path stays a 404 and an API path of the edge table is
 * never shadowed. Shell pages live at the top (the password-reset link the identity plugin mails
 * points at `/reset-password`); every screen lives under `/admin/`.
 */
export const DASHBOARD_ENTRY_PATHS: readonly string[] = ['/', '/sign-in', '/forgot-password', '/reset-password'];

/** The prefix of every screen route (`/admin`, `/admin/users/42`, ...). */
export const DASHBOARD_SCREENS_PREFIX = '/admin';

/** True when `pathname` (no query) is one of the dashboard's own routes. */
export function isDashboardRoute(pathname: string): boolean {
  return (
    DASHBOARD_ENTRY_PATHS.includes(pathname) ||
    pathname === DASHBOARD_SCREENS_PREFIX ||
    pathname.startsWith(`${DASHBOARD_SCREENS_PREFIX}/`)
  );
}

/**
 * The policy of `index.html`: scripts and data only from this origin, inline styles (Mantine sets
 * CSS variables in a style element), images also as data: URLs (the 2FA QR code) and blobs
 * (previews), never framed.
 */
export const DASHBOARD_POLICY: DocumentPolicy = {
  'default-src': "'self'",
  'script-src': "'self'",
  'style-src': "'self' 'unsafe-inline'",
  'img-src': "'self' data: blob:",
  'connect-src': "'self'",
  'frame-ancestors': "'none'",
  'base-uri': "'self'",
  'form-action': "'self'",
};

/**
 * Headers of `index.html`, wherever it is served (this plugin, or nginx in the split deployment):
 * never cached (it names the current hashed files), the kernel's document headers of
 * {@link DASHBOARD_POLICY}, no referrer outside this origin.
 */
export const INDEX_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  ...documentHeaders(DASHBOARD_POLICY),
  'referrer-policy': 'same-origin',
};

/** Cache-Control of a hashed build file (`index-Bx3k_9aZ.js`): its content never changes under that name. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** A hashed build file name, as Vite writes them. */
export const HASHED_NAME = /-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;
