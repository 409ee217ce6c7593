import type { LayoutRow } from '../store/layouts.ts';
import { notFoundLayout, pickLayout } from './layouts.ts';
import type { ContentNode } from './node-tree.ts';
import { type PageSeo, renderPageDocument } from './page-document.ts';
import { renderHtml } from './render.ts';
import { themeCss, type ThemeValues } from './theme-css.ts';
import type { ExpansionContext } from './tree-expansion.ts';
import type { WebsiteCache } from './website-cache.ts';

const REGIONS = ['header', 'aside', 'main', 'footer'] as const;

/** Layout regions a canvas can mark for editing. */
export type CanvasRegion = (typeof REGIONS)[number] | 'notFound';

/** Where a page's content goes on a layout's canvas (drawn by the editor, not by the site). */
const BODY_PLACEHOLDER =
  '<div data-cms-placeholder style="margin:1rem;padding:2rem 1rem;border:2px dashed #868e96;color:#495057;' +
  'background:#f8f9fa;text-align:center;font:1rem system-ui,sans-serif">The page\'s content goes here</div>';

/** A page to draw: stored (the public site) or being edited (the canvas). */
export interface SitePage {
  id: string;
  websiteId: string;
  locale: string;
  /** The path inside the website the page answers (for a dynamic page, the path asked for). */
  path: string;
  title: string;
  seo?: PageSeo | null;
  content: ContentNode;
}

/**
 * Pages as documents in their website's layout and active theme (page-document.ts), with every
 * node that stands for data expanded (tree-expansion.ts) in the page and in the layout's regions.
 * The layouts and the theme's CSS come from per-website caches dropped by layout, theme and
 * website writes, so a public request reads neither; the editor's canvas draws through the same
 * function with its unsaved content and theme, marked for selection.
 */
export class SitePages {
  private readonly drawn = new WeakMap<ContentNode, [string | undefined, string | undefined]>();

  constructor(
    private readonly deps: {
      layouts: WebsiteCache<LayoutRow[]>;
      /** The active theme as CSS (lenient: a stored theme never fails a page). */
      themes: WebsiteCache<string>;
      expand(tree: ContentNode, context: ExpansionContext): Promise<ContentNode>;
      stripHtmlComments(): Promise<boolean>;
    },
  ) {}

  /**
   * The page's document; `draft` is what the canvas adds: an unsaved theme, node marks, and the
   * layouts as staff see them (working copies over the live ones). With a `draft` it is a staff
   * preview, whose bound data is read from the primary.
   */
  async page(
    page: SitePage,
    staffDraft?: { theme?: ThemeValues | null; annotate?: boolean; layouts?: LayoutRow[] },
  ): Promise<string> {
    const draft = staffDraft ?? {};
    const context: ExpansionContext = {
      websiteId: page.websiteId,
      locale: page.locale,
      page: { id: page.id, path: page.path },
      scripts: new Set(),
      staff: staffDraft !== undefined,
    };
    const [layouts, css, stripComments, content] = await Promise.all([
      draft.layouts ?? this.deps.layouts.get(page.websiteId),
      draft.theme ? themeCss(draft.theme) : this.deps.themes.get(page.websiteId),
      this.deps.stripHtmlComments(),
      this.deps.expand(page.content, context),
    ]);
    const layout = pickLayout(layouts, page);
    const regions: Partial<Record<(typeof REGIONS)[number], string>> = {};
    await Promise.all(
      REGIONS.map(async (name) => {
        const tree = layout?.regions[name];
        if (tree) regions[name] = this.regionHtml(await this.deps.expand(tree, context), stripComments);
      }),
    );
    return renderPageDocument(
      {
        locale: page.locale,
        title: page.title,
        seo: page.seo,
        content,
        layout: layout && { regions, slots: layout.slots },
        css,
        // The canvas runs no script (sandboxed): its forms are drawn, inert.
        scripts: draft.annotate ? [] : [...context.scripts!],
      },
      { stripComments, annotate: draft.annotate },
    );
  }

  /**
   * The website's 404 document for a browser: the `notFound` region of the layout that holds one
   * (the source `/public/404/:websiteId` answers) in that layout and the active theme, with data
   * nodes expanded; else `fallback` (when given) in the layout chosen for `/404`; else undefined.
   */
  async notFound(websiteId: string, locale: string, fallback: ContentNode | null): Promise<string | undefined> {
    const [layouts, css, stripComments] = await Promise.all([
      this.deps.layouts.get(websiteId),
      this.deps.themes.get(websiteId),
      this.deps.stripHtmlComments(),
    ]);
    const holder = notFoundLayout(layouts);
    const layout = holder ?? (fallback ? pickLayout(layouts, { locale, path: '/404' }) : undefined);
    const tree = holder?.regions.notFound ?? fallback;
    if (!tree) return undefined;
    const context: ExpansionContext = { websiteId, locale, page: null, scripts: new Set() };
    const regions: Partial<Record<(typeof REGIONS)[number], string>> = {};
    const [content] = await Promise.all([
      this.deps.expand(tree, context),
      ...REGIONS.map(async (name) => {
        const region = layout?.regions[name];
        if (region) regions[name] = this.regionHtml(await this.deps.expand(region, context), stripComments);
      }),
    ]);
    return renderPageDocument(
      {
        locale,
        title: 'Page not found',
        content,
        layout: layout && { regions, slots: layout.slots },
        css,
        scripts: [...context.scripts!],
      },
      { stripComments },
    );
  }

  /**
   * A layout template on its own, for the editor: its regions expanded and drawn as on a page (the
   * edited one marked for selection), a placeholder where a page's content goes (the `notFound`
   * region there while it is the one edited).
   */
  async layout(
    layout: Pick<LayoutRow, 'website_id' | 'name' | 'locale' | 'regions' | 'slots'>,
    draft: { theme?: ThemeValues | null; edited?: CanvasRegion },
  ): Promise<string> {
    const context: ExpansionContext = {
      websiteId: layout.website_id,
      locale: layout.locale,
      page: null,
      staff: true,
    };
    const [css, stripComments] = await Promise.all([
      draft.theme ? themeCss(draft.theme) : this.deps.themes.get(layout.website_id),
      this.deps.stripHtmlComments(),
    ]);
    const drawn: Partial<Record<CanvasRegion, string>> = {};
    await Promise.all(
      [...REGIONS, 'notFound' as const].map(async (name) => {
        const tree = layout.regions[name];
        if (!tree) return;
        const expanded = await this.deps.expand(tree, context);
        drawn[name] =
          name === draft.edited
            ? renderHtml(expanded, { stripComments, annotate: true })
            : this.regionHtml(expanded, stripComments);
      }),
    );
    const { notFound, ...regions } = drawn;
    return renderPageDocument(
      {
        locale: layout.locale,
        title: layout.name,
        content: { drawn: draft.edited === 'notFound' ? (notFound ?? '') : BODY_PLACEHOLDER },
        layout: { regions, slots: layout.slots },
        css,
      },
      { stripComments },
    );
  }

  /**
   * A region's HTML, drawn once per expanded tree: a region without data nodes expands to itself
   * (kept by the layout cache) and a menu to the same object for the same page (menu-node.ts), so
   * a public request reuses the drawing; trees are never changed once made, so the same object
   * draws the same HTML.
   */
  private regionHtml(tree: ContentNode, stripComments: boolean): string {
    const known = this.drawn.get(tree);
    const html = known?.[stripComments ? 1 : 0] ?? renderHtml(tree, { stripComments });
    const next = known ?? [undefined, undefined];
    next[stripComments ? 1 : 0] = html;
    this.drawn.set(tree, next);
    return html;
  }

  /** A snippet or a page template on its own (no layout) in a website's theme, for the canvas. */
  async snippet(
    snippet: { websiteId: string | null; name: string; content: ContentNode },
    draft: { theme?: ThemeValues | null; annotate?: boolean } = {},
  ): Promise<string> {
    const [css, stripComments, content] = await Promise.all([
      draft.theme
        ? themeCss(draft.theme)
        : snippet.websiteId
          ? this.deps.themes.get(snippet.websiteId)
          : themeCss(null),
      this.deps.stripHtmlComments(),
      this.deps.expand(snippet.content, { websiteId: snippet.websiteId, locale: null, staff: true }),
    ]);
    return renderPageDocument(
      { locale: null, title: snippet.name, content, css },
      { stripComments, annotate: draft.annotate },
    );
  }
}
