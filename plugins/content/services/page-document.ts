import type { DocumentPolicy } from '../../../kernel/index.ts';
import type { LayoutRow } from '../store/layouts.ts';
import type { ContentNode } from './node-tree.ts';
import { escapeHtml, type RenderOptions, renderHtml } from './render.ts';

export interface PageSeo {
  title?: string;
  description?: string;
  canonical?: string;
  openGraph?: Record<string, string>;
}

/** Everything a page's document is drawn from; trees already expanded (tree-expansion.ts). */
export interface PageDocument {
  locale: string | null;
  title: string;
  seo?: PageSeo | null;
  /** The page's nodes, or what stands in their place, already drawn (a layout's canvas). */
  content: ContentNode | { drawn: string };
  /** The layout's regions, already drawn (expanded, through `renderHtml`), and slots; none for a snippet. */
  layout?: { regions: Partial<Record<'header' | 'aside' | 'main' | 'footer', string>>; slots: LayoutRow['slots'] };
  /** The theme as CSS (theme-css.ts), or null for no style element. */
  css: string | null;
  /** Same-origin scripts the expanded trees need (the form block's), loaded deferred; none on a canvas. */
  scripts?: readonly string[];
}

/**
 * The policy a website page is served under (the live page, its 404 document, the website preview
 * at `/<root>/<path>`): what `renderPageDocument` draws and nothing more. Scripts only as files of
 * this origin (the form block's `/public/content/form-block.js`, never an inline one or a handler
 * attribute); styles inline (the theme's style element, `style` props); images, media and fonts
 * also from any https address (content names them there); calls to this origin only (the form's
 * submit); framed by this origin only (the dashboard and the editor). kernel/document-policy.ts adds
 * `object-src 'none'`, `base-uri 'none'` and `form-action 'self'`.
 */
export const WEBSITE_PAGE_POLICY: DocumentPolicy = {
  'default-src': "'self'",
  'script-src': "'self'",
  'style-src': "'self' 'unsafe-inline'",
  'img-src': "'self' data: https:",
  'media-src': "'self' https:",
  'font-src': "'self' data: https:",
  'connect-src': "'self'",
  'frame-ancestors': "'self'",
};

const LOCALE = /^[A-Za-z0-9-]{1,64}$/;
const REGION_ELEMENTS = ['header', 'aside'] as const;

function head(doc: PageDocument): string {
  const seo = doc.seo ?? {};
  const lines = [
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(seo.title || doc.title)}</title>`,
  ];
  if (seo.description) lines.push(`<meta name="description" content="${escapeHtml(seo.description)}">`);
  if (seo.canonical) lines.push(`<link rel="canonical" href="${escapeHtml(seo.canonical)}">`);
  for (const [name, value] of Object.entries(seo.openGraph ?? {}))
    if (typeof value === 'string')
      lines.push(`<meta property="og:${escapeHtml(name.replace(/^og:/, ''))}" content="${escapeHtml(value)}">`);
  if (doc.css !== null) lines.push(`<style data-cms-theme>${doc.css}</style>`);
  for (const src of doc.scripts ?? []) lines.push(`<script src="${escapeHtml(src)}" defer></script>`);
  return lines.join('\n');
}

/**
 * The HTML document of a page, the one function behind the live site, the static builds and the
 * editor's canvas: doctype, `lang`, the SEO title (or the page title), description, canonical link,
 * Open Graph tags, the theme's style element; in the body the layout's header and aside regions,
 * a `main` element (the layout's `body` slot class and style) holding the layout's `main` region
 * and then the page's content, and the footer region. Every tree goes through the one renderer
 * (`renderHtml`: every value escaped, comments per `strip-html-comments`; the regions arrive drawn
 * by it, see site-pages.ts). The canvas differs only
 * by `annotate` (the page's own nodes carry `data-cms-node`; regions are context there, not
 * editable) and by the unsaved content, title and theme it is given. Nothing in it depends on the
 * request or the time, so a build and the live answer are the same bytes.
 */
export function renderPageDocument(doc: PageDocument, options: RenderOptions): string {
  const region = (name: 'header' | 'aside' | 'main' | 'footer') => doc.layout?.regions[name] ?? '';
  const body = doc.layout?.slots?.body ?? {};
  const bodyAttributes =
    (typeof body.className === 'string' && body.className ? ` class="${escapeHtml(body.className)}"` : '') +
    (typeof body.style === 'string' && body.style ? ` style="${escapeHtml(body.style)}"` : '');
  const parts: string[] = [];
  for (const name of REGION_ELEMENTS) {
    const html = region(name);
    if (html) parts.push(`<${name} data-cms-region="${name}">${html}</${name}>`);
  }
  const content = 'drawn' in doc.content ? doc.content.drawn : renderHtml(doc.content, options);
  parts.push(`<main${bodyAttributes}>${region('main')}${content}</main>`);
  const footer = region('footer');
  if (footer) parts.push(`<footer data-cms-region="footer">${footer}</footer>`);
  const lang = doc.locale && LOCALE.test(doc.locale) ? doc.locale : 'en';
  return (
    `<!DOCTYPE html>\n<html lang="${lang}">\n<head>\n${head(doc)}\n</head>\n` +
    `<body>\n${parts.join('\n')}\n</body>\n</html>\n`
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
