import { createHash } from 'node:crypto';
import MiniSearch from 'minisearch';
import type { PluginServices } from '../../../kernel/index.ts';
import type { DocsSettings } from '../ports.ts';
import { splitFrontMatter } from './front-matter.ts';
import { escapeHtml, type Heading, type Resolved, renderMarkdown } from './markdown.ts';
import type { DocsWarning, NavItem, Visibility } from './model.ts';
import { checkNav, filterNav, navOrder } from './nav.ts';
import {
  pathInVersion,
  pathOfVersion,
  type SiteVersion,
  type Versions,
  versionNav,
  versionOfPath,
  versionsOf,
} from './versions.ts';

/** The options a browser passes to `MiniSearch.loadJSON(JSON.stringify(answer.index), answer.options)`. */
type FolderFile = Awaited<ReturnType<PluginServices['assetLibrary']['folderFiles']>>['files'][number];

export const SEARCH_OPTIONS = {
  idField: 'path',
  fields: ['title', 'headings', 'text'],
  storeFields: ['title', 'path', 'description'],
} as const;

export interface Document {
  path: string;
  /** The file's path under the folder. */
  file: string;
  assetId: string;
  title: string;
  description: string;
  visibility: Visibility;
  order: number;
  html: string;
  headings: Heading[];
  warnings: DocsWarning[];
  text: string;
  updatedAt: string;
}

export interface SiteInfo {
  websiteId: string;
  title: string;
  rootPath: string;
  index: { kind: 'automatic' | 'file'; path?: string };
}

/** The site as a scope answers it: with the versions that scope shows (README "Versions"). */
export type ScopedSiteInfo = SiteInfo & { versions: SiteVersion[] };

export interface PageAnswer {
  path: string;
  title: string;
  description: string;
  html: string;
  headings: Heading[];
  warnings?: DocsWarning[];
  visibility: Visibility;
  updatedAt: string;
  prev?: { path: string; title: string };
  next?: { path: string; title: string };
  /** The page's version, when the site has versions. */
  version?: string;
  /** This page in every version: the same path there when it exists, else that version's start page. */
  inVersions?: Array<{ version: string; path: string }>;
}

/** One scope of a site: everything (staff preview) or the public documents only. */
export interface Scope {
  nav: NavItem[];
  order: string[];
  /** JSON of `{ site, page }` per document path, built on first read and kept encoded (sent as is). */
  pageJson: Map<string, Buffer>;
  /**
   * The same answers by the URL's own text, for URLs that are already a document's canonical path
   * (so at most one entry per document): a read is one lookup, without decoding or checking the path.
   */
  byUrl: Map<string, Buffer>;
  searchIndex?: { body: Buffer; etag: string };
  /** The `vN/` folders (and root) this scope shows, and the site info with them. */
  versions: Versions;
  info: ScopedSiteInfo;
  /** Per version, made on first use: its navigation, reading order and search index. */
  byVersion: Map<string, { nav: NavItem[]; order: string[]; searchIndex?: { body: Buffer; etag: string } }>;
}

export interface BuiltSite {
  info: SiteInfo;
  documents: Map<string, Document>;
  otherFiles: Array<{ path: string; assetId: string }>;
  warnings: DocsWarning[];
  /** Fingerprint of the folder's files: the same files, the same site. */
  fingerprint: string;
  all: Scope;
  public: Scope;
}

export interface BuildInput {
  website: { id: string; name: string; rootPath: string };
  settings: DocsSettings;
  files: FolderFile[];
  truncated: boolean;
  read(file: FolderFile): Promise<Buffer>;
  maxFileBytes: number;
  /** Renders kept across builds, by content hash and everything a render depends on. */
  renders: Map<string, RenderedDoc>;
}

type RenderedDoc = Pick<Document, 'html' | 'headings' | 'warnings' | 'text'> & { title: string | undefined };

const READ_CONCURRENCY = 16;
const MAX_KEPT_RENDERS = 20_000;

export const fingerprintOf = (settings: DocsSettings, files: readonly FolderFile[]) => {
  const h = createHash('sha1').update(JSON.stringify(settings));
  for (const f of files) h.update(`${f.id}\0${f.path}\0${f.sha256}\0${f.visibility}\n`);
  return h.digest('base64url');
};

/** `guide/index.md` → `guide`, `guide/intro.md` → `guide/intro`, `index.md` → ''. */
const docPathOf = (file: string, slug: string | undefined) => {
  const segments = file.replace(/\.md$/i, '').split('/');
  if (slug) segments[segments.length - 1] = slug;
  else if (segments[segments.length - 1].toLowerCase() === 'index') segments.pop();
  return segments.join('/');
};

const dirOf = (file: string) => (file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '');

/** Joins a relative link to the folder of the linking file; undefined when it climbs out of the folder. */
function joinRelative(dir: string, target: string): string | undefined {
  const out = dir ? dir.split('/') : [];
  for (const seg of target.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (!out.length) return undefined;
      out.pop();
    } else out.push(seg);
  }
  return out.join('/');
}

async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]);
      }
    }),
  );
  return out;
}

export const sitePath = (rootPath: string, path: string) => (path ? `${rootPath}/${path}` : `${rootPath}/`);

/**
 * Builds a documentation site from its folder's files: documents (front matter, title, visibility,
 * path), links and images resolved against the folder, the navigation (nav file or tree), warnings.
 * Pages and search indexes are made from it on first read (`pageOf`, `searchIndexOf`).
 */
export async function buildSite(input: BuildInput): Promise<BuiltSite> {
  const { settings, website } = input;
  const folder = settings.sourceFolder;
  const prefix = folder ? `${folder}/` : '';
  const warnings: DocsWarning[] = [];
  if (input.truncated)
    warnings.push({
      code: 'TOO_MANY_FILES',
      path: '',
      message: `The folder holds more files than a site reads (${input.files.length}); the rest are left out`,
    });
  const relative = input.files
    .filter((f) => f.path.startsWith(prefix))
    .map((f) => ({ file: f, rel: f.path.slice(prefix.length) }));
  const markdown = relative.filter((r) => /\.md$/i.test(r.rel));
  const others = relative.filter((r) => !/\.md$/i.test(r.rel));
  const otherByRel = new Map(others.map((o) => [o.rel, o.file]));
  const defaultVisibility = settings.defaultVisibility ?? 'public';

  // Read and split every document (a bounded number at once).
  const parsed = await mapLimit(markdown, READ_CONCURRENCY, async ({ file, rel }) => {
    if (file.size > input.maxFileBytes) {
      warnings.push({
        code: 'FILE_TOO_LARGE',
        path: rel,
        message: `${rel} is larger than ${input.maxFileBytes} bytes and is not published`,
      });
      return undefined;
    }
    let bytes: Buffer;
    try {
      bytes = await input.read(file);
    } catch (err) {
      warnings.push({
        code: 'FILE_TOO_LARGE',
        path: rel,
        message: `${rel} could not be read: ${(err as Error).message}`,
      });
      return undefined;
    }
    const split = splitFrontMatter(bytes.toString('utf8'), rel);
    if (split.warning) warnings.push(split.warning);
    let path = docPathOf(rel, split.data.slug);
    if (settings.indexFile && rel === settings.indexFile) path = '';
    else if (settings.indexFile && path === '') path = 'index';
    return { file, rel, split, path };
  });

  // Paths: the first file (by path) wins, the others are reported.
  const byPath = new Map<string, NonNullable<(typeof parsed)[number]>>();
  const byFile = new Map<string, string>();
  for (const p of parsed) {
    if (!p) continue;
    const there = byPath.get(p.path);
    if (there) {
      warnings.push({
        code: 'DUPLICATE_PATH',
        path: p.rel,
        target: there.rel,
        message: `${p.rel} and ${there.rel} both give the path /${p.path}; ${there.rel} is published`,
      });
      continue;
    }
    byPath.set(p.path, p);
    byFile.set(p.rel, p.path);
  }
  const visibilityOf = (p: { split: { data: { visibility?: Visibility } } }) =>
    p.split.data.visibility ?? defaultVisibility;

  const treeKey = createHash('sha1')
    .update(website.rootPath)
    .update(JSON.stringify([...byPath].map(([path, p]) => [path, p.rel, visibilityOf(p)])))
    .update(JSON.stringify(others.map((o) => [o.rel, o.file.url])))
    .digest('base64url');

  const documents = new Map<string, Document>();
  for (const [path, p] of byPath) {
    const visibility = visibilityOf(p);
    const dir = dirOf(p.rel);
    const key = `${p.file.sha256}\0${p.rel}\0${path}\0${treeKey}\0${p.split.lines}`;
    let rendered = input.renders.get(key);
    if (!rendered) {
      rendered = renderMarkdown(p.split.body, {
        path: p.rel,
        visibility,
        lineOffset: p.split.lines,
        resolve(target): Resolved {
          const joined = joinRelative(dir, target);
          if (joined === undefined) return { kind: 'missing' };
          const docPath =
            byFile.get(joined) ??
            byFile.get(`${joined}.md`) ??
            byFile.get(joined ? `${joined}/index.md` : 'index.md') ??
            (byPath.has(joined) ? joined : undefined);
          if (docPath !== undefined) {
            const doc = byPath.get(docPath);
            return {
              kind: 'document',
              href: sitePath(website.rootPath, docPath),
              visibility: doc ? visibilityOf(doc) : 'public',
            };
          }
          const other = otherByRel.get(joined);
          return other ? { kind: 'file', href: other.url } : { kind: 'missing' };
        },
      });
      if (input.renders.size >= MAX_KEPT_RENDERS) input.renders.delete(input.renders.keys().next().value as string);
      input.renders.set(key, rendered);
    }
    documents.set(path, {
      path,
      file: p.rel,
      assetId: p.file.id,
      title: p.split.data.title || rendered.title || p.rel.replace(/\.md$/i, '').split('/').pop() || website.name,
      description: p.split.data.description ?? '',
      visibility,
      order: p.split.data.order ?? Number.MAX_SAFE_INTEGER,
      html: rendered.html,
      headings: rendered.headings,
      warnings: rendered.warnings,
      text: rendered.text,
      updatedAt: p.file.updatedAt,
    });
  }
  for (const d of documents.values()) warnings.push(...d.warnings);

  // Navigation: the nav file, else the folder tree ordered by `order`, then title.
  let nav: NavItem[];
  const navFile = settings.navFile ? relative.find((r) => r.rel === settings.navFile) : undefined;
  if (settings.navFile && navFile) {
    const text = (await input.read(navFile.file)).toString('utf8');
    const checked = checkNav(text, settings.navFile, (path) => documents.get(path)?.title);
    warnings.push(...checked.warnings);
    for (const e of checked.errors)
      warnings.push({
        code: 'NAV_UNKNOWN_PATH',
        path: settings.navFile,
        line: e.line,
        message: `Nav file: ${e.message}`,
      });
    nav = checked.ok ? checked.nav : treeNav(documents);
  } else {
    if (settings.navFile)
      warnings.push({
        code: 'NAV_UNKNOWN_PATH',
        path: settings.navFile,
        message: `The nav file ${settings.navFile} is not in the folder; the navigation follows the folder tree`,
      });
    nav = treeNav(documents);
  }
  const info: SiteInfo = {
    websiteId: website.id,
    title: website.name,
    rootPath: website.rootPath,
    index: documents.has('') ? { kind: 'file', path: byPath.get('')?.rel } : { kind: 'automatic' },
  };
  const scope = (keep: (d: Document) => boolean): Scope => {
    const scoped = filterNav(
      nav,
      (path) => {
        const d = documents.get(path);
        return d !== undefined && keep(d);
      },
      (item) => {
        // A group whose own document is left out is named by its folder, never by that document's title.
        if (item.path === undefined) return item.title;
        return item.path.split('/').pop() || item.title;
      },
    );
    const order = navOrder(scoped);
    const seen = new Set(order);
    for (const d of [...documents.values()].sort((a, b) => a.path.localeCompare(b.path)))
      if (!seen.has(d.path) && keep(d)) order.push(d.path);
    if (!documents.has('')) order.unshift('');
    else if (order[0] !== '' && keep(documents.get('') as Document)) {
      const at = order.indexOf('');
      if (at > 0) order.splice(at, 1);
      order.unshift('');
    }
    const versions = versionsOf([...documents.values()].filter(keep).map((d) => d.path));
    return {
      nav: scoped,
      order,
      pageJson: new Map(),
      byUrl: new Map(),
      versions,
      info: { ...info, versions: versions.list },
      byVersion: new Map(),
    };
  };
  return {
    info,
    documents,
    otherFiles: others.map((o) => ({ path: o.rel, assetId: o.file.id })),
    warnings,
    fingerprint: fingerprintOf(settings, input.files),
    all: scope(() => true),
    public: scope((d) => d.visibility === 'public'),
  };
}

/** The folder tree as navigation: a folder is a group, titled by its index document. */
function treeNav(documents: Map<string, Document>): NavItem[] {
  interface Node {
    name: string;
    doc?: Document;
    children: Map<string, Node>;
  }
  const root: Node = { name: '', children: new Map() };
  for (const d of documents.values()) {
    if (d.path === '') continue;
    let node = root;
    for (const seg of d.path.split('/')) {
      let next = node.children.get(seg);
      if (!next) {
        next = { name: seg, children: new Map() };
        node.children.set(seg, next);
      }
      node = next;
    }
    node.doc = d;
  }
  const toItems = (node: Node): NavItem[] =>
    [...node.children.values()]
      .map((child) => ({
        child,
        order: child.doc?.order ?? Number.MAX_SAFE_INTEGER,
        title: child.doc?.title ?? child.name,
      }))
      .sort((a, b) => a.order - b.order || a.title.localeCompare(b.title))
      .map(({ child, title }) => {
        const children = toItems(child);
        return {
          title,
          ...(child.doc ? { path: child.doc.path } : {}),
          ...(children.length ? { children } : {}),
        };
      });
  return toItems(root);
}

const hideLinksToPrivate = (html: string) =>
  html.replace(/<a [^>]*data-private="true"[^>]*>([\s\S]*?)<\/a>/g, '<span class="private-link">$1</span>');

/** One version of a scope (made on first use): its navigation and reading order. */
export function versionOfScope(scope: Scope, name: string) {
  let hit = scope.byVersion.get(name);
  if (hit) return hit;
  const nav = versionNav(scope.nav, scope.versions, name);
  const start = pathOfVersion(name, '');
  const inside = scope.order.filter((p) => p !== '' && p !== start && versionOfPath(scope.versions, p) === name);
  // The start page first; the site's own start page belongs to the default version.
  const order = [...(name === scope.versions.defaultName && start !== '' ? [''] : []), start, ...inside];
  hit = { nav, order };
  scope.byVersion.set(name, hit);
  return hit;
}

/** A scope's navigation and reading order for a path: its version's, or the whole site's. */
function contextOf(scope: Scope, path: string) {
  const version = versionOfPath(scope.versions, path);
  return version === undefined
    ? { version, nav: scope.nav, order: scope.order }
    : { version, ...versionOfScope(scope, version) };
}

/** The title of a start page without a document of its own. */
const startTitle = (site: BuiltSite, path: string) => (path ? `${site.info.title} ${path}` : site.info.title);

/** The automatic index: the documents of this scope (of the path's version) as a nested list. */
function automaticIndex(site: BuiltSite, nav: readonly NavItem[], path: string): Document {
  const list = (items: readonly NavItem[]): string =>
    `<ul>${items
      .map(
        (i) =>
          `<li>${i.path !== undefined ? `<a href="${escapeHtml(sitePath(site.info.rootPath, i.path))}">${escapeHtml(i.title)}</a>` : escapeHtml(i.title)}${i.children ? list(i.children) : ''}</li>`,
      )
      .join('')}</ul>`;
  const updated =
    [...site.documents.values()]
      .map((d) => d.updatedAt)
      .sort()
      .pop() ?? new Date(0).toISOString();
  const title = startTitle(site, path);
  return {
    path,
    file: '',
    assetId: '',
    title,
    description: '',
    visibility: 'public',
    order: 0,
    html: `<h1 id="contents">${escapeHtml(title)}</h1>${nav.length ? list(nav) : '<p>No documents yet.</p>'}`,
    headings: [{ depth: 1, text: title, id: 'contents' }],
    warnings: [],
    text: '',
    updatedAt: updated,
  };
}

/** Whether a scope answers a path: one of its documents, or a start page (the site's or a version's). */
function answers(site: BuiltSite, which: 'all' | 'public', path: string): boolean {
  const doc = site.documents.get(path);
  if (doc) return which === 'all' || doc.visibility === 'public';
  return path === '' || site[which].versions.list.some((v) => v.path === path);
}

/** This page in every version of the scope: the same path there, else that version's start page. */
function inVersionsOf(site: BuiltSite, which: 'all' | 'public', path: string) {
  const { versions } = site[which];
  const inside = pathInVersion(versions, path);
  return versions.list.map((v) => {
    const same = pathOfVersion(v.name, inside);
    return { version: v.name, path: answers(site, which, same) ? same : v.path };
  });
}

/** A document as a scope answers it (undefined: not in this scope, the same as missing). */
export function pageOf(site: BuiltSite, which: 'all' | 'public', path: string): PageAnswer | undefined {
  const scope = site[which];
  if (!answers(site, which, path)) return undefined;
  const { version, nav, order } = contextOf(scope, path);
  const doc = site.documents.get(path) ?? automaticIndex(site, nav, path);
  const at = order.indexOf(path);
  const neighbour = (i: number) => {
    const p = order[i];
    if (p === undefined) return undefined;
    const d = site.documents.get(p);
    return { path: p, title: d?.title ?? startTitle(site, p) };
  };
  const prev = at > 0 ? neighbour(at - 1) : undefined;
  const next = at >= 0 ? neighbour(at + 1) : undefined;
  return {
    path: doc.path,
    title: doc.title,
    description: doc.description,
    html: which === 'public' ? hideLinksToPrivate(doc.html) : doc.html,
    headings: doc.headings,
    ...(which === 'all' ? { warnings: doc.warnings } : {}),
    visibility: doc.visibility,
    updatedAt: doc.updatedAt,
    ...(prev ? { prev } : {}),
    ...(next ? { next } : {}),
    ...(version !== undefined ? { version, inVersions: inVersionsOf(site, which, path) } : {}),
  };
}

/** The navigation a scope shows for a version (the whole site's without one). */
export function navOf(site: BuiltSite, which: 'all' | 'public', version: string | undefined): NavItem[] | undefined {
  const scope = site[which];
  if (version === undefined) return scope.nav;
  return scope.versions.list.some((v) => v.name === version) ? versionOfScope(scope, version).nav : undefined;
}

/** `{ site, page }` as JSON text, made once per document and scope. */
export function pageJsonOf(site: BuiltSite, which: 'all' | 'public', path: string): Buffer | undefined {
  const scope = site[which];
  const hit = scope.pageJson.get(path);
  if (hit !== undefined) return hit;
  const page = pageOf(site, which, path);
  if (!page) return undefined;
  const nav = page.version === undefined ? scope.nav : versionOfScope(scope, page.version).nav;
  const body = Buffer.from(
    JSON.stringify(which === 'all' ? { site: scope.info, nav, page } : { site: scope.info, page }),
  );
  scope.pageJson.set(path, body);
  return body;
}

type SearchEntry = { path: string; title: string; description: string; headings: string; text: string };
type EncodedIndex = { body: Buffer; etag: string };

const newSearch = () =>
  new MiniSearch<SearchEntry>({
    ...SEARCH_OPTIONS,
    fields: [...SEARCH_OPTIONS.fields],
    storeFields: [...SEARCH_OPTIONS.storeFields],
  });
const entryOf = (d: Document): SearchEntry => ({
  path: d.path,
  title: d.title,
  description: d.description,
  headings: d.headings.map((h) => h.text).join('\n'),
  text: d.text,
});
/** Encoded at once: `toJSON()` hands out the live index, which later additions change. */
function encodeIndex(search: MiniSearch<SearchEntry>, documentCount: number): EncodedIndex {
  const body = Buffer.from(
    JSON.stringify({
      format: 'minisearch',
      version: 7,
      options: SEARCH_OPTIONS,
      documentCount,
      index: search.toJSON(),
    }),
  );
  return { body, etag: `"${createHash('sha1').update(body).digest('base64url')}"` };
}

/**
 * The search index of a scope: MiniSearch's JSON with the options to load it, and its ETag. Both
 * scopes are made in one pass: the public documents are indexed and that index is encoded first (the
 * public answer), then the private documents are added to the same index for the staff answer, so
 * every document is indexed once. A site without private documents answers the same index to both.
 * With `version`, the index of that version's documents only (undefined: no such version in the scope).
 */
export function searchIndexOf(site: BuiltSite, which: 'all' | 'public', version?: string): EncodedIndex | undefined {
  const scope = site[which];
  if (version !== undefined) return versionSearchIndexOf(site, which, version);
  if (scope.searchIndex) return scope.searchIndex;
  const search = newSearch();
  const docs = [...site.documents.values()];
  const publicDocs = docs.filter((d) => d.visibility === 'public');
  search.addAll(publicDocs.map(entryOf));
  site.public.searchIndex = encodeIndex(search, publicDocs.length);
  if (publicDocs.length === docs.length) site.all.searchIndex = site.public.searchIndex;
  else {
    search.addAll(docs.filter((d) => d.visibility !== 'public').map(entryOf));
    site.all.searchIndex = encodeIndex(search, docs.length);
  }
  return site[which].searchIndex;
}

function versionSearchIndexOf(site: BuiltSite, which: 'all' | 'public', version: string): EncodedIndex | undefined {
  const scope = site[which];
  if (!scope.versions.list.some((v) => v.name === version)) return undefined;
  const kept = versionOfScope(scope, version);
  if (kept.searchIndex) return kept.searchIndex;
  const docs = [...site.documents.values()].filter(
    (d) => (which === 'all' || d.visibility === 'public') && versionOfPath(scope.versions, d.path) === version,
  );
  const search = newSearch();
  search.addAll(docs.map(entryOf));
  kept.searchIndex = encodeIndex(search, docs.length);
  return kept.searchIndex;
}
