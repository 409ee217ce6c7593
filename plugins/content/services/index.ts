import type { RouteRateLimit } from '../../../kernel/index.ts';
import { BindingStore } from '../store/bindings.ts';
import { DraftStore } from '../store/drafts.ts';
import { ScheduleStore } from '../store/schedules.ts';
import { LayoutStore } from '../store/layouts.ts';
import { PageStore } from '../store/pages.ts';
import { StagedPageStore } from '../store/staged-pages.ts';
import { TemplateStore } from '../store/templates.ts';
import { ThemeStore } from '../store/themes.ts';
import { WebsitePathStore } from '../store/website-paths.ts';
import { SettingsStore } from '../store/settings.ts';
import { SnippetStore } from '../store/snippets.ts';
import { PublicPageStore } from '../store/public-pages.ts';
import { VersionStore } from '../store/versions.ts';
import { WebsiteStore } from '../store/websites.ts';
import { dataBindingExpander } from './data-bindings.ts';
import type { ContentDeps } from './deps.ts';
import type { ContentNode } from './node-tree.ts';
import { LayoutService } from './layouts.ts';
import { MenuService } from './menus.ts';
import { PageSchedules } from './page-schedules.ts';
import { PageService } from './pages.ts';
import { TemplateService } from './templates.ts';
import { ThemeService } from './themes.ts';
import { menuExpander } from './menu-node.ts';
import { formBlockExpander } from './form-node.ts';
import { SitePages } from './site-pages.ts';
import { themeCss } from './theme-css.ts';
import type { DocsHtmlHandler } from './docs-websites.ts';
import { WebsiteCache } from './website-cache.ts';
import { CONTENT_CACHE } from './cache-notice.ts';
import { PublicPages } from './public-pages.ts';
import { SettingsService } from './settings.ts';
import { SnippetService } from './snippets.ts';
import { StagedPageService } from './staged-pages.ts';
import { type ResolvedWebsite, SiteDirectory } from './site-directory.ts';
import { Sitemaps } from './sitemap.ts';
import { WebsiteService } from './websites.ts';
import { type ExpansionContext, expandTree, type TreeExpander } from './tree-expansion.ts';

/** What a website without 404 content shows a browser (in its layout and theme). */
const NOT_FOUND_TREE: ContentNode = {
  type: 'section',
  props: { className: 'cms-not-found' },
  children: [{ type: 'h1', text: 'Page not found' }],
};

/** The plugin's one set of services, built in `setup`. */
export function createContentServices(kernel: ContentDeps) {
  const db = kernel.db;
  const websiteStore = new WebsiteStore(db);
  // A change made here is announced to every process (cache-notice.ts); a notice from any process
  // drops everything kept below.
  const announce = () =>
    void kernel.cacheNotices
      .changed(CONTENT_CACHE)
      .catch((err) => kernel.log.warn({ err }, 'content: change notice not sent (others see it within 5 s)'));
  const directory = new SiteDirectory({ websites: websiteStore, clock: kernel.clock, announce });
  // The live site's reads (published pages, patterns, sitemap) come from the read replica when there
  // is one (DATABASE_READ_URL); every staff read, write and cache of settings and roots from `db`.
  const publicStore = new PublicPageStore(kernel.readDb);
  const publicPages = new PublicPages({ kernel, store: publicStore, directory });
  const bindings = new BindingStore(db);
  const versions = new VersionStore(db);
  const pageStore = new PageStore(db);
  const sitemaps = new Sitemaps({ store: publicStore, directory, now: () => kernel.clock.now().getTime() });
  // What every page of a website is drawn with, kept per website (website-cache.ts) and dropped by
  // the writes that change it; website writes (the directory's generation) drop them all.
  const cached = <T>(load: (websiteId: string) => Promise<T>) =>
    new WebsiteCache({ load, now: () => kernel.clock.now().getTime(), generation: () => directory.generation });
  const layoutStore = new LayoutStore(db);
  const themeStore = new ThemeStore(db);
  const menuStore = new WebsitePathStore(db);
  const layoutCache = cached((websiteId) => layoutStore.list(websiteId));
  const themeCache = cached(async (websiteId) => {
    const theme = await themeStore.active(websiteId);
    const values = theme && { colors: theme.colors, fonts: theme.fonts, customStyles: theme.custom_styles };
    return themeCss(values ?? null, { lenient: true });
  });
  const menuCache = cached((websiteId) => menuStore.menuSource(websiteId));
  const dropPageCaches = () => {
    publicPages.invalidate();
    sitemaps.invalidate();
    // Menus link to published pages by their paths.
    menuCache.invalidate();
    // What the replica's reads refilled before it replayed the change is dropped again once it has.
    if (kernel.readReplica.enabled) void kernel.readReplica.caughtUp().then(dropReplicaReads);
  };
  const dropReplicaReads = () => {
    publicPages.invalidate();
    sitemaps.invalidate();
  };
  const onPageChange = () => {
    dropPageCaches();
    announce();
  };
  const drafts = new DraftStore(db);
  const pages = new PageService({
    kernel,
    pages: pageStore,
    versions,
    bindings,
    drafts,
    directory,
    onChange: onPageChange,
  });
  const settings = new SettingsService({ kernel, store: new SettingsStore(db) });
  kernel.cacheNotices.on(CONTENT_CACHE, () => {
    directory.drop();
    dropPageCaches();
    layoutCache.invalidate();
    themeCache.invalidate();
    settings.drop();
  });
  // Nodes that stand for data read at render time, expanded before the synchronous renderer runs,
  // for the canvas and the public page alike (see tree-expansion.ts).
  const expanders: TreeExpander[] = [];
  expanders.push(dataBindingExpander(kernel));
  expanders.push(formBlockExpander(kernel));
  expanders.push(menuExpander({ menu: (id) => menuCache.get(id), website: (id) => directory.byId(id) }));
  const expand = (tree: ContentNode, context: ExpansionContext) => expandTree(expanders, tree, context);
  const sitePages = new SitePages({
    layouts: layoutCache,
    themes: themeCache,
    expand,
    stripHtmlComments: () => settings.stripHtmlComments(),
  });
  /**
   * The HTML document of a published page, or undefined (404): what the live site answers a browser
   * and what a static build (publish plugin) writes, from the same read and the same document
   * function as the editor's canvas (the page in its layout and theme).
   */
  const pageHtml = async (site: ResolvedWebsite, locale: string, path: string): Promise<string | undefined> => {
    const found = await publicPages.find(site, locale, path);
    if (!found) return undefined;
    const page = JSON.parse(found.body);
    return sitePages.page({ ...page, websiteId: site.id, locale, path });
  };
  /**
   * The website's 404 document for a browser asking a path with no published page: the source of
   * `/public/404/:websiteId` (the layout's `notFound` region, else the published `/404` page of the
   * first locale) drawn as a page of the website; without either, a plain heading in the layout
   * chosen for `/404`. `locale`: the one asked for when the website has it, else its first.
   */
  const notFoundHtml = async (site: ResolvedWebsite, locale: string): Promise<string> => {
    const lang = site.locales.includes(locale) ? locale : site.locales[0];
    const region = await sitePages.notFound(site.id, lang, null);
    if (region !== undefined) return region;
    const first = site.locales[0];
    const found = await publicStore.pageBody(site.id, first, '/404');
    if (found) return sitePages.page({ ...JSON.parse(found.body), websiteId: site.id, locale: first, path: '/404' });
    return (await sitePages.notFound(site.id, lang, NOT_FOUND_TREE))!;
  };
  const stagedStore = new StagedPageStore(db);
  const snippetStore = new SnippetStore(db);
  return {
    kernel,
    directory,
    websiteStore,
    websites: new WebsiteService({ kernel, store: websiteStore, directory }),
    pageStore,
    pages,
    /** Working copies of pages, snippets, templates and layouts (the pending-changes list). */
    drafts,
    /** Scheduled publishing of pages (the schedule `content.scheduled-publishing`). */
    schedules: new PageSchedules({ kernel, pages, store: new ScheduleStore(db) }),
    stagedStore,
    staged: new StagedPageService({ kernel, pages, store: stagedStore }),
    versions,
    bindings,
    snippetStore,
    snippets: new SnippetService({ kernel, store: snippetStore, versions, drafts }),
    templates: new TemplateService({ kernel, store: new TemplateStore(db), drafts }),
    layouts: new LayoutService({
      kernel,
      store: layoutStore,
      drafts,
      onChange: (id) => {
        layoutCache.invalidate(id);
        announce();
      },
    }),
    menus: new MenuService({
      kernel,
      store: menuStore,
      onChange: () => {
        menuCache.invalidate();
        announce();
      },
    }),
    themes: new ThemeService({
      kernel,
      store: themeStore,
      onChange: (id) => {
        themeCache.invalidate(id);
        announce();
      },
    }),
    settings,
    pageHtml,
    notFoundHtml,
    /** The active theme of a website as CSS (kept per website like the pages' theme). */
    themeCss: (websiteId: string) => themeCache.get(websiteId),
    /** The documentation site's HTML, set by the docs plugin through `docsWebsites` (docs-websites.ts). */
    docsHtml: { handler: undefined as DocsHtmlHandler | undefined },
    sitePages,
    expand,
    publicStore,
    publicPages,
    sitemaps,
    /** Every public content route shares one count per client address (`config.rateLimit`). */
    publicRateLimit: {
      key: 'address',
      bucket: 'content:public',
      windowMs: 60_000,
      limit: kernel.pluginConfig.PUBLIC_CONTENT_RATE_LIMIT_PER_MINUTE,
      message: 'Too many requests to the public content API; try again later',
    } satisfies RouteRateLimit,
  };
}

export type ContentServices = ReturnType<typeof createContentServices>;
