import type { ContentNode } from './node-tree.ts';
import { escapeHtml, type RenderOptions, renderHtml } from './render.ts';

/** The fields of the public page JSON (store/public-pages.ts) the HTML document uses. */
interface PublicPage {
  locale: string;
  title: string;
  content: ContentNode;
  seo?: { title?: string; description?: string; canonical?: string; openGraph?: Record<string, string> } | null;
}

const LOCALE = /^[A-Za-z0-9-]{1,64}$/;

/**
 * The HTML document of a published page, as the live site serves it to a browser and as a static
 * build writes it: doctype, `lang`, the SEO title, description, canonical link and Open Graph tags,
 * and the node tree through the one renderer (`renderHtml`: every value escaped, comments per the
 * `strip-html-comments` setting). Nothing in it depends on the request or the time, so a build and
 * the live answer are the same bytes.
 */
export function renderPageDocument(page: PublicPage, options: RenderOptions): string {
  const seo = page.seo ?? {};
  const head = [
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(seo.title || page.title)}</title>`,
  ];
  if (seo.description) head.push(`<meta name="description" content="${escapeHtml(seo.description)}">`);
  if (seo.canonical) head.push(`<link rel="canonical" href="${escapeHtml(seo.canonical)}">`);
  for (const [name, value] of Object.entries(seo.openGraph ?? {}))
    if (typeof value === 'string')
      head.push(`<meta property="og:${escapeHtml(name.replace(/^og:/, ''))}" content="${escapeHtml(value)}">`);
  const lang = LOCALE.test(page.locale) ? page.locale : 'en';
  return (
    `<!DOCTYPE html>\n<html lang="${lang}">\n<head>\n${head.join('\n')}\n</head>\n` +
    `<body>\n${renderHtml(page.content, options)}\n</body>\n</html>\n`
  );
}

/**
 * Whether a request's `Accept` asks for HTML rather than the JSON the public page routes answer by
 * default: `text/html` named with a higher weight than `application/json` (a browser navigating to
 * the page). `*` ranges never choose HTML, so API clients (`fetch` sends `*\/*`) keep getting JSON.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept || accept.length > 2000) return false;
  let html = 0;
  let json = 0;
  for (const range of accept.split(',')) {
    const [type, ...params] = range.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    const weight = q === undefined ? 1 : Math.min(1, Number(q) || 0);
    if (type.trim() === 'text/html') html = Math.max(html, weight);
    else if (type.trim() === 'application/json') json = Math.max(json, weight);
  }
  return html > json;
}
