import { useQuery } from '@tanstack/react-query';
import { api, type paths, unwrap } from '../../admin-ui/app/src/sdk/index.ts';

/** The JSON body of an answer in the generated API types. */
type Json<T> = T extends { content: { 'application/json': infer J } } ? J : never;

/** The content plugin's records as the dashboard sees them: typed by the routes' answer schemas (`/openapi.json`). */
export type Website = Json<paths['/cms-one/websites/{id}']['get']['responses'][200]>;
/** A page; the list leaves `content` out. */
export type Page = Json<paths['/cms-one/pages/{id}']['get']['responses'][200]>;
export type Version = Json<paths['/cms-one/pages/{id}/versions']['get']['responses'][200]>[number];
export type Snippet = Json<paths['/cms-one/snippets/{id}']['get']['responses'][200]>;
export type Theme = Json<paths['/cms-one/themes/{id}']['get']['responses'][200]>;
export type Template = Json<paths['/cms-one/templates/{id}']['get']['responses'][200]>;
export type Kit = Json<paths['/cms-one/kits/{id}']['get']['responses'][200]>;
export type Layout = Json<paths['/cms-one/websites/{websiteId}/templates/{id}']['get']['responses'][200]>;
export type MenuEntry = Json<paths['/cms-one/website-paths/{id}']['get']['responses'][200]>;

/** The largest page the list routes answer (`limit`'s maximum): lists are filtered in the browser below it. */
export const LIST_MAX = 1000;

/** Query keys, all under the plugin id. */
export const keys = {
  all: ['content'] as const,
  websites: ['content', 'websites'] as const,
  website: (id: string) => ['content', 'websites', id] as const,
  pages: (websiteId: string) => ['content', 'pages', 'website', websiteId] as const,
  page: (id: string) => ['content', 'pages', id] as const,
  snippets: ['content', 'snippets'] as const,
  snippet: (id: string) => ['content', 'snippets', id] as const,
  templates: ['content', 'templates'] as const,
  kits: ['content', 'kits'] as const,
  themes: (websiteId: string | null) => ['content', 'themes', websiteId ?? 'global'] as const,
  layouts: (websiteId: string) => ['content', 'layouts', websiteId] as const,
  menu: (websiteId: string) => ['content', 'menu', websiteId] as const,
  settings: ['content', 'settings'] as const,
};

/** Every website (`GET /cms-one/websites`). */
export async function allWebsites(): Promise<Website[]> {
  return unwrap(await api.GET('/cms-one/websites'));
}

export function useWebsites() {
  return useQuery({ queryKey: keys.websites, queryFn: allWebsites });
}

/** One website (`GET /cms-one/websites/:id`). */
export function useWebsite(id: string) {
  return useQuery({
    queryKey: keys.website(id),
    queryFn: async () => unwrap(await api.GET('/cms-one/websites/{id}', { params: { path: { id } } })),
  });
}

/** A website's pages, up to `LIST_MAX` (`GET /cms-one/pages?websiteId=`). */
export async function pagesOf(websiteId: string): Promise<Page[]> {
  return unwrap(await api.GET('/cms-one/pages', { params: { query: { websiteId, limit: LIST_MAX, offset: 0 } } }));
}

export function usePages(websiteId: string) {
  return useQuery({ queryKey: keys.pages(websiteId), queryFn: () => pagesOf(websiteId) });
}

/** A website's menu entries (`GET /cms-one/website-paths?websiteId=`). */
export function useMenu(websiteId: string) {
  return useQuery({
    queryKey: keys.menu(websiteId),
    queryFn: async () =>
      unwrap(await api.GET('/cms-one/website-paths', { params: { query: { websiteId, limit: 5000, offset: 0 } } })),
  });
}

/** A website's layout templates (`GET /cms-one/websites/:id/templates`). */
export async function layoutsOf(websiteId: string): Promise<Layout[]> {
  return unwrap(await api.GET('/cms-one/websites/{websiteId}/templates', { params: { path: { websiteId } } }));
}

/** The global theme catalog (`null`) or a website's own catalog. */
export async function themesOf(websiteId: string | null): Promise<Theme[]> {
  return websiteId
    ? unwrap(await api.GET('/cms-one/websites/{id}/themes', { params: { path: { id: websiteId } } }))
    : unwrap(await api.GET('/cms-one/themes'));
}

export function useThemes(websiteId: string | null) {
  return useQuery({ queryKey: keys.themes(websiteId), queryFn: () => themesOf(websiteId) });
}

/** Every snippet, up to `LIST_MAX`. */
export async function allSnippets(): Promise<Snippet[]> {
  return unwrap(await api.GET('/cms-one/snippets', { params: { query: { limit: LIST_MAX, offset: 0 } } }));
}

/** Every page template, up to `LIST_MAX`. */
export async function allTemplates(): Promise<Template[]> {
  return unwrap(await api.GET('/cms-one/templates', { params: { query: { limit: LIST_MAX, offset: 0 } } }));
}

export function useTemplates() {
  return useQuery({ queryKey: keys.templates, queryFn: allTemplates });
}

/** Every kit, up to `LIST_MAX`. */
export async function allKits(): Promise<Kit[]> {
  return unwrap(await api.GET('/cms-one/kits', { params: { query: { limit: LIST_MAX, offset: 0 } } }));
}

export function useKits() {
  return useQuery({ queryKey: keys.kits, queryFn: allKits });
}

/** Where a published page is read: `/<root path><page path>` for the first language, else the public API by language. */
export function publicPathOf(site: Pick<Website, 'rootPath' | 'locales'>, page: Pick<Page, 'path' | 'locale'>) {
  const path = page.path === '/' ? '' : page.path;
  if (page.locale === site.locales[0]) return `${site.rootPath}${path}`;
  return `/public/pages/${encodeURIComponent(page.locale)}${site.rootPath}${path}`;
}

/** The visual editor's address (served by the page-editor plugin, outside the dashboard). */
export const editorUrl = {
  page: (id: string) => `/cms-one/editor/pages/${id}`,
  snippet: (id: string) => `/cms-one/editor/snippets/${id}`,
  template: (id: string) => `/cms-one/editor/templates/${id}`,
  kit: (id: string) => `/cms-one/editor/kits/${id}`,
  layout: (websiteId: string, id: string) => `/cms-one/editor/layouts/${websiteId}/${id}`,
};

/** A date for a table cell, in the user's locale. */
export function shortDate(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—';
}

/** `3 pages`, `1 page`. */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

type Answer = { data?: unknown; error?: unknown; response: Response };
// The four kinds share one route shape; the typed client takes them by their literal paths.
const untyped = api as unknown as {
  GET(path: string, init?: unknown): Promise<Answer>;
  POST(path: string, init?: unknown): Promise<Answer>;
  DELETE(path: string, init?: unknown): Promise<Answer>;
};

/**
 * The working-copy routes (`…/draft/diff`, `…/publish-draft`, `…/draft`) of a page, snippet,
 * template or layout (routes/working-copy-routes.ts).
 */
export function draftRoutes(owner: { ownerType: string; id: string; websiteId?: string | null }) {
  const base =
    owner.ownerType === 'layout'
      ? `/cms-one/websites/${owner.websiteId}/templates/${owner.id}`
      : `/cms-one/${owner.ownerType === 'page' ? 'pages' : owner.ownerType === 'snippet' ? 'snippets' : 'templates'}/${owner.id}`;
  return {
    diff: () => untyped.GET(`${base}/draft/diff`),
    publish: () => untyped.POST(`${base}/publish-draft`),
    discard: () => untyped.DELETE(`${base}/draft`),
  };
}
