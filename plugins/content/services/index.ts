import type { RouteRateLimit } from '../../../kernel/index.ts';
import { BindingStore } from '../store/bindings.ts';
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
import { PageService } from './pages.ts';
import { TemplateService } from './templates.ts';
import { ThemeService } from './themes.ts';
import { renderPageDocument } from './page-document.ts';
import { PublicPages } from './public-pages.ts';
import { SettingsService } from './settings.ts';
import { SnippetService } from './snippets.ts';
import { StagedPageService } from './staged-pages.ts';
import { type ResolvedWebsite, SiteDirectory } from './site-directory.ts';
import { Sitemaps } from './sitemap.ts';
import { WebsiteService } from './websites.ts';
import { type ExpansionContext, expandTree, type TreeExpander } from './tree-expansion.ts';

/** The plugin's one set of services, built in `setup`. */
export function createContentServices(kernel: ContentDeps) {
  const db = kernel.db;
  const websiteStore = new WebsiteStore(db);
  const directory = new SiteDirectory({ websites: websiteStore, clock: kernel.clock });
  const publicStore = new PublicPageStore(db);
  const publicPages = new PublicPages({ kernel, store: publicStore, directory });
  const bindings = new BindingStore(db);
  const versions = new VersionStore(db);
  const pageStore = new PageStore(db);
  const sitemaps = new Sitemaps({ store: publicStore, directory, now: () => kernel.clock.now().getTime() });
  const onPageChange = () => {
    publicPages.invalidate();
    sitemaps.invalidate();
  };
  const pages = new PageService({ kernel, pages: pageStore, versions, bindings, directory, onChange: onPageChange });
  const settings = new SettingsService({ kernel, store: new SettingsStore(db) });
  /**
   * The HTML document of a published page, or undefined (404): what the live site answers a browser
   * and what a static build (publish plugin) writes, from the same read and the same renderer.
   */
  // Nodes that stand for data read at render time, expanded before the synchronous renderer runs,
  // for the canvas and the public page alike (see tree-expansion.ts).
  const expanders: TreeExpander[] = [];
  expanders.push(dataBindingExpander(kernel));
  const expand = (tree: ContentNode, context: ExpansionContext) => expandTree(expanders, tree, context);
  const pageHtml = async (site: ResolvedWebsite, locale: string, path: string): Promise<string | undefined> => {
    const page = await publicPages.find(site, locale, path);
    if (!page) return undefined;
    const document = JSON.parse(page.body);
    document.content = await expand(document.content, { websiteId: site.id, locale });
    return renderPageDocument(document, { stripComments: await settings.stripHtmlComments() });
  };
  return {
    kernel,
    directory,
    websiteStore,
    websites: new WebsiteService({ kernel, store: websiteStore, directory }),
    pageStore,
    pages,
    staged: new StagedPageService({ kernel, pages, store: new StagedPageStore(db) }),
    versions,
    bindings,
    snippets: new SnippetService({ kernel, store: new SnippetStore(db), versions }),
    templates: new TemplateService({ kernel, store: new TemplateStore(db) }),
    layouts: new LayoutService({ kernel, store: new LayoutStore(db) }),
    menus: new MenuService({ kernel, store: new WebsitePathStore(db) }),
    themes: new ThemeService({ kernel, store: new ThemeStore(db) }),
    settings,
    pageHtml,
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
