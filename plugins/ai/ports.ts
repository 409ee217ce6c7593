import type { Actor, AuditContext } from '../../kernel/index.ts';

/**
 * What the AI plugin collects (no plugin imports this file; the augmentation below makes the types
 * visible to contributors): the registry `aiContentTargets`, one item from the plugin that holds
 * websites and pages (the content plugin). Everything the AI writes goes through it, so a generated
 * page passes the same rules as one a person types; the AI plugin never writes content tables.
 */

/** One page of a generated website structure. */
export interface AiStructurePage {
  path: string;
  title: string;
  locale: string;
  /** A node tree, as the editor saves it. */
  content: unknown;
}

/** One menu entry; `children` nest. */
export interface AiStructureMenuEntry {
  title: string;
  path: string;
  children?: AiStructureMenuEntry[];
}

/** A website skeleton: what `/ai/generate-website-structure` answers and `/cms-one/websites/from-ai` takes. */
export interface AiWebsiteStructure {
  name: string;
  rootPath: string;
  locales: string[];
  theme?: string | null;
  pages: AiStructurePage[];
  menu: AiStructureMenuEntry[];
}

/** A page to translate, with its website's locales and those its translation group already has. */
export interface AiTranslatablePage {
  id: string;
  websiteId: string;
  locale: string;
  translationGroupId: string;
  path: string;
  title: string;
  content: unknown;
  seo: Record<string, unknown>;
  websiteLocales: string[];
  groupLocales: string[];
}

/** An item of the registry `aiContentTargets`. */
export interface AiContentTarget {
  /** Why `tree` breaks the editor's node-tree rules (the message names `field`), or undefined when it passes. */
  contentProblem(tree: unknown, field: string): string | undefined;
  /** The page `id`, or undefined when there is none. */
  pageForTranslation(id: string): Promise<AiTranslatablePage | undefined>;
  /**
   * A draft page in `source`'s translation group, written as `POST /cms-one/pages` writes one (400
   * naming the field, 409 for a locale the group has); answers the page as the page routes do.
   */
  createTranslation(
    actor: Actor,
    source: AiTranslatablePage,
    page: { locale: string; title: string; content: unknown; seo: Record<string, unknown> },
  ): Promise<Record<string, unknown>>;
  /**
   * The website, its pages (drafts) and its menu in one transaction, audited once as
   * `website.create_from_ai`; nothing stays behind when any part is refused (400 naming the field,
   * 409 naming a reserved or taken root path).
   */
  createWebsite(
    ctx: AuditContext,
    structure: AiWebsiteStructure,
  ): Promise<{ website: { id: string; name: string; rootPath: string }; pageIds: string[]; menuEntryIds: string[] }>;
}

declare module '../../kernel/index.ts' {
  interface PluginContributions {
    aiContentTargets: AiContentTarget;
  }
}
