import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { escapeHtml } from './markdown.ts';
import type { NavItem } from './model.ts';
import { type BuiltSite, navOf, type PageAnswer, pageOf, sitePath } from './site.ts';

export const DOCS_SCRIPT_PATH = '/public/docs-assets/search.js';
export const MINISEARCH_PATH = '/public/docs-assets/minisearch.js';

let minisearch: Promise<string> | undefined;
/** MiniSearch's browser build (UMD, global `MiniSearch`), read once from the installed package. */
export function minisearchScript(): Promise<string> {
  minisearch ??= (async () => {
    const require = createRequire(import.meta.url);
    // The package exports no ./package.json: its CommonJS entry (dist/cjs/index.cjs) finds the folder.
    const root = path.resolve(path.dirname(require.resolve('minisearch')), '..', '..');
    return readFile(path.join(root, 'dist', 'umd', 'index.js'), 'utf8');
  })();
  return minisearch;
}

/**
 * The search box's script: loads the public index once (MiniSearch's JSON), searches as you type,
 * and lists the hits as links. The page is whole without it; only the search needs it.
 */
export const DOCS_SCRIPT = `(() => {
  const box = document.getElementById('docs-search');
  if (!box || typeof MiniSearch === 'undefined') return;
  const input = document.getElementById('docs-q');
  const list = document.getElementById('docs-results');
  const status = document.getElementById('docs-search-status');
  const root = box.dataset.root;
  let search;
  const load = () => {
    if (search) return search;
    search = fetch(box.dataset.index, { headers: { accept: 'application/json' } })
      .then((r) => r.json())
      .then((a) => MiniSearch.loadJSON(JSON.stringify(a.index), a.options));
    return search;
  };
  box.hidden = false;
  input.addEventListener('focus', load);
  input.addEventListener('input', async () => {
    const q = input.value.trim();
    list.replaceChildren();
    if (!q) { status.textContent = ''; return; }
    const hits = (await load()).search(q, { prefix: true, fuzzy: 0.2 }).slice(0, 10);
    for (const hit of hits) {
      const li = document.createElement('li');
      const a = document.createElement('a');
      a.href = hit.path ? root + '/' + hit.path : root + '/';
      a.textContent = hit.title;
      li.append(a);
      list.append(li);
    }
    status.textContent = hits.length ? hits.length + ' results' : 'No results';
  });
})();
`;

const BASE_CSS = `
*{box-sizing:border-box}body{margin:0;font:16px/1.6 var(--cms-font-body,system-ui,sans-serif);color:var(--cms-color-text,#1a1a1a);background:var(--cms-color-background,#fff)}
a{color:#0b57d0}.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:4px}
header{display:flex;gap:16px;align-items:center;justify-content:space-between;padding:12px 24px;border-bottom:1px solid #ddd}
header .site{font-weight:600;font-size:1.1rem;text-decoration:none;color:inherit}
#docs-search{position:relative}#docs-search ul{position:absolute;right:0;background:#fff;border:1px solid #ccc;margin:0;padding:8px 16px;min-width:260px;list-style:none;z-index:2}#docs-search ul:empty{display:none}
.layout{display:grid;grid-template-columns:240px minmax(0,1fr) 200px;gap:32px;max-width:1280px;margin:0 auto;padding:24px}
.sidebar ul{list-style:none;padding-left:12px;margin:0}.sidebar>ul{padding-left:0}.sidebar a[aria-current]{font-weight:700}
.toc{font-size:.9rem}.toc ul{list-style:none;padding-left:0}.toc .d3{padding-left:12px}.toc .d4{padding-left:24px}
main{min-width:0}pre{background:#f6f8fa;padding:12px;overflow:auto;border-radius:4px}code{font-family:ui-monospace,monospace;font-size:.9em}
table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:4px 8px}
.anchor{margin-left:6px;text-decoration:none;color:#555}.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.pager{display:flex;justify-content:space-between;margin-top:32px;border-top:1px solid #ddd;padding-top:16px}.updated{color:#555;font-size:.9rem}
.task-list-item{list-style:none}
.versions ul{display:flex;gap:8px;list-style:none;margin:0;padding:0}.versions a[aria-current]{font-weight:700}
.hljs-keyword,.hljs-built_in,.hljs-type{color:#a0116e}.hljs-string,.hljs-attr{color:#0a6a2f}.hljs-comment{color:#5c6166;font-style:italic}.hljs-number,.hljs-literal{color:#0550ae}.hljs-title,.hljs-function{color:#6639ba}
@media (max-width:900px){.layout{grid-template-columns:1fr}.toc{display:none}}
`;

function navList(items: readonly NavItem[], rootPath: string, current: string): string {
  return `<ul>${items
    .map((item) => {
      const link =
        item.path !== undefined
          ? `<a href="${escapeHtml(sitePath(rootPath, item.path))}"${item.path === current ? ' aria-current="page"' : ''}>${escapeHtml(item.title)}</a>`
          : `<span>${escapeHtml(item.title)}</span>`;
      return `<li>${link}${item.children?.length ? navList(item.children as NavItem[], rootPath, current) : ''}</li>`;
    })
    .join('')}</ul>`;
}

/**
 * The version switcher: a list of links (no script needed), each to this page in that version, or to
 * that version's start page where the page is missing; the current version is marked.
 */
function versionSwitcher(site: BuiltSite, page: PageAnswer | undefined): string {
  if (!page?.inVersions) return '';
  const versions = site.public.versions.list;
  const links = page.inVersions.map(({ version, path }) => {
    const label = versions.find((v) => v.name === version)?.default ? `${version} (default)` : version;
    const current = version === page.version ? ' aria-current="true"' : '';
    return `<li><a href="${escapeHtml(sitePath(site.info.rootPath, path))}"${current}>${escapeHtml(label)}</a></li>`;
  });
  return `<nav class="versions" aria-label="Versions"><ul>${links.join('')}</ul></nav>`;
}

/**
 * The public site's HTML document for a path: the navigation, the page, "on this page", prev/next,
 * last updated, and the search box (hidden until its script runs). Public documents only; a private
 * or missing one is the same 404 document.
 */
export function docsDocument(site: BuiltSite, rawPath: string, themeCss: string): { status: 200 | 404; html: string } {
  const docPath = rawPath.split('/').filter(Boolean).join('/');
  const page = docPath.split('/').some((s) => s === '..' || s === '.') ? undefined : pageOf(site, 'public', docPath);
  const { info } = site;
  const title = page ? `${page.title} – ${info.title}` : `Not found – ${info.title}`;
  const version = page?.version ?? site.public.versions.defaultName;
  const nav = navOf(site, 'public', version) ?? site.public.nav;
  const index = `/public/docs/${info.websiteId}/search-index${version ? `?version=${encodeURIComponent(version)}` : ''}`;
  const toc = page?.headings.filter((h) => h.depth === 2 || h.depth === 3) ?? [];
  const main = page
    ? `<article>${page.html}</article>
<nav class="pager" aria-label="Previous and next">${page.prev ? `<a rel="prev" href="${escapeHtml(sitePath(info.rootPath, page.prev.path))}">← ${escapeHtml(page.prev.title)}</a>` : '<span></span>'}${page.next ? `<a rel="next" href="${escapeHtml(sitePath(info.rootPath, page.next.path))}">${escapeHtml(page.next.title)} →</a>` : ''}</nav>
<p class="updated">Last updated <time datetime="${escapeHtml(page.updatedAt)}">${escapeHtml(page.updatedAt.slice(0, 10))}</time></p>`
    : `<h1>Page not found</h1><p>There is no page at this address. <a href="${escapeHtml(sitePath(info.rootPath, ''))}">Go to the start page</a>.</p>`;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>${page?.description ? `<meta name="description" content="${escapeHtml(page.description)}">` : ''}
<style>${BASE_CSS}${themeCss.replace(/<\//g, '<\\/')}</style></head>
<body><a class="skip" href="#content">Skip to content</a>
<header><a class="site" href="${escapeHtml(sitePath(info.rootPath, ''))}">${escapeHtml(info.title)}</a>${versionSwitcher(site, page)}
<div id="docs-search" role="search" hidden data-index="${escapeHtml(index)}" data-root="${escapeHtml(info.rootPath)}">
<label for="docs-q">Search the documentation</label> <input id="docs-q" type="search" autocomplete="off">
<p id="docs-search-status" class="visually-hidden" aria-live="polite"></p><ul id="docs-results"></ul></div></header>
<div class="layout"><nav class="sidebar" aria-label="Documentation">${navList(nav, info.rootPath, docPath)}</nav>
<main id="content">${main}</main>
<aside class="toc" aria-label="On this page">${toc.length ? `<h2>On this page</h2><ul>${toc.map((h) => `<li class="d${h.depth}"><a href="#${escapeHtml(h.id)}">${escapeHtml(h.text)}</a></li>`).join('')}</ul>` : ''}</aside></div>
<script src="${MINISEARCH_PATH}" defer></script><script src="${DOCS_SCRIPT_PATH}" defer></script>
</body></html>`;
  return { status: page ? 200 : 404, html };
}
