import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../admin-ui/app/src/sdk/index.ts';

/**
 * The content plugin's records as the dashboard sees them. The `/cms-one` routes declare no answer
 * schema, so the shapes are written here from the DTOs the routes answer with (services/*.ts, `to…Dto`).
 */

export interface Website {
  id: string;
  name: string;
  rootPath: string;
  locales: string[];
  settings: Record<string, unknown>;
  theme: string | null;
  domains: string[];
  kind: string;
  siteKey: { set: boolean };
  createdAt: string;
  updatedAt: string;
}

export interface Seo {
  title?: string;
  description?: string;
  canonical?: string;
}

/** A page as the list answers it (no content tree); `GET /cms-one/pages/:id` adds `content`. */
export interface Page {
  id: string;
  websiteId: string;
  locale: string;
  translationGroupId: string;
  path: string;
  dynamic: boolean;
  dataClass: string | null;
  title: string;
  content?: unknown;
  seo: Seo;
  inSitemap: boolean;
  indexable: boolean;
  published: boolean;
  publishedAt: string | null;
  kind: 'app' | 'page' | null;
  createdAt: string;
  updatedAt: string;
}

export interface Version {
  id: string;
  title: string | null;
  createdBy: string | null;
  createdAt: string;
}

export interface Snippet {
  id: string;
  name: string;
  websiteId: string | null;
  content?: unknown;
  locked: boolean;
  thumbnail: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Template {
  id: string;
  path: string;
  name: string;
  content?: unknown;
  createdAt: string;
  updatedAt: string;
}

export interface Kit {
  id: string;
  name: string;
  templateIds: string[];
  createdAt: string;
  updatedAt: string;
}

export interface Theme {
  id: string;
  websiteId: string | null;
  name: string;
  colors: Record<string, string>;
  fonts: Record<string, string>;
  customStyles: string;
  isDefault: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface Layout {
  id: string;
  websiteId: string;
  name: string;
  regions: Record<string, unknown>;
  slots: Record<string, { className?: string; style?: string }>;
  pathPatterns: string[];
  locale: string | null;
  isDefault: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface MenuEntry {
  id: string;
  websiteId: string;
  parentId: string | null;
  label: string;
  path: string | null;
  pageId: string | null;
  position: number;
}

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
export function useWebsites() {
  return useQuery({
    queryKey: keys.websites,
    queryFn: async () => unwrap<unknown>(await api.GET('/cms-one/websites')) as Website[],
  });
}

/** One website (`GET /cms-one/websites/:id`). */
export function useWebsite(id: string) {
  return useQuery({
    queryKey: keys.website(id),
    queryFn: async () =>
      unwrap<unknown>(await api.GET('/cms-one/websites/{id}', { params: { path: { id } } })) as Website,
  });
}

/** A website's pages, up to `LIST_MAX` (`GET /cms-one/pages?websiteId=`). */
export async function pagesOf(websiteId: string): Promise<Page[]> {
  return unwrap<unknown>(
    await api.GET('/cms-one/pages', { params: { query: { websiteId, limit: LIST_MAX, offset: 0 } } }),
  ) as Page[];
}

export function usePages(websiteId: string) {
  return useQuery({ queryKey: keys.pages(websiteId), queryFn: () => pagesOf(websiteId) });
}

/** A website's menu entries (`GET /cms-one/website-paths?websiteId=`). */
export function useMenu(websiteId: string) {
  return useQuery({
    queryKey: keys.menu(websiteId),
    queryFn: async () =>
      unwrap<unknown>(
        await api.GET('/cms-one/website-paths', { params: { query: { websiteId, limit: 5000, offset: 0 } } }),
      ) as MenuEntry[],
  });
}

/** The global theme catalog (`null`) or a website's own catalog. */
export function useThemes(websiteId: string | null) {
  return useQuery({
    queryKey: keys.themes(websiteId),
    queryFn: async () =>
      (websiteId
        ? unwrap<unknown>(await api.GET('/cms-one/websites/{id}/themes', { params: { path: { id: websiteId } } }))
        : unwrap<unknown>(await api.GET('/cms-one/themes'))) as Theme[],
  });
}

export function useTemplates() {
  return useQuery({
    queryKey: keys.templates,
    queryFn: async () =>
      unwrap<unknown>(
        await api.GET('/cms-one/templates', { params: { query: { limit: LIST_MAX, offset: 0 } } }),
      ) as Template[],
  });
}

export function useKits() {
  return useQuery({
    queryKey: keys.kits,
    queryFn: async () =>
      unwrap<unknown>(await api.GET('/cms-one/kits', { params: { query: { limit: LIST_MAX, offset: 0 } } })) as Kit[],
  });
}

/** Where a page of a website is served: `/<root path><page path>` (the first locale), JSON from the public API. */
export function publicPathOf(site: Pick<Website, 'rootPath' | 'locales'>, page: Pick<Page, 'path' | 'locale'>) {
  const path = page.path === '/' ? '' : page.path;
  if (page.locale === site.locales[0]) return `${site.rootPath}${path}`;
  return `/public/pages/${encodeURIComponent(page.locale)}${site.rootPath}${path}`;
}

/** The visual editor's address (served by the page-editor plugin, outside the dashboard). */
export const editorUrl = {
  page: (id: string) => `/cms-one/editor/pages/${id}`,
  snippet: (id: string) => `/cms-one/editor/snippets/${id}`,
};

/** A date for a table cell, in the user's locale. */
export function shortDate(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—';
}

/** `3 pages`, `1 page`. */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
