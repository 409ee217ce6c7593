import type { PublishPageRef, PublishWebsite } from '../ports.ts';

/**
 * Where each part of a static build goes, relative to the build's folder (or key prefix). The build
 * mirrors the live site's addresses, so any static server serving the folder at `/` answers the same
 * URLs as the live site, and every link and `/dam-asset/...` reference in the pages keeps working:
 * - a page of the default locale (the first): `<root>/<path>/index.html` (`/shop/about` →
 *   `shop/about/index.html`, the home page `/shop` → `shop/index.html`);
 * - a page of another locale: `<root>/<path>/index.<locale>.html` beside it (the live site serves it at
 *   `/public/pages/<locale>/<root>/<path>`; a static server can pick it by `Accept-Language`);
 * - a library file: `dam-asset/<library path>`, as the live site delivers it.
 * A segment that is empty, `.` or `..`, or holds `\` or a control character never reaches a file name.
 */

/** A backslash or a control character (U+0000 to U+001F, U+007F). */
const badSegment = (s: string) =>
  s.includes('\\') || [...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

function safeSegments(path: string): string[] | undefined {
  const segments = path.split('/').filter((s) => s !== '');
  return segments.every((s) => s !== '.' && s !== '..' && !badSegment(s)) ? segments : undefined;
}

/** The file of a page, or undefined when its path cannot be a file name. */
export function pageFile(site: PublishWebsite, page: PublishPageRef): string | undefined {
  const segments = safeSegments(`${site.rootPath}/${page.path}`);
  if (!segments?.length || !/^[A-Za-z0-9_-]{1,64}$/.test(page.locale)) return undefined;
  const name = page.locale === site.locales[0] ? 'index.html' : `index.${page.locale}.html`;
  return [...segments, name].join('/');
}

/** The file of a library file, or undefined when its path cannot be a file name. */
export function libraryFile(libraryPath: string): string | undefined {
  const segments = safeSegments(libraryPath);
  return segments?.length ? ['dam-asset', ...segments].join('/') : undefined;
}
