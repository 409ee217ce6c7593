import type { Actor, Tx } from '../../kernel/index.ts';

/**
 * What the migration plugin collects: the registry `documentImportTargets`, where Pimcore documents
 * become pages, staged pages and snippets. The content plugin contributes the one target (its
 * websites, pages and snippets), so an import writes through the page and snippet services (their
 * checks, versions and change announcements) in the import's transaction, and a wysiwyg tree is
 * cleaned by the content rules. The migration plugin provides no service.
 */
export interface ImportedNode {
  type: string;
  props?: Record<string, unknown>;
  children?: ImportedNode[];
  text?: string;
}

export interface DocumentImportTarget {
  /** The website, its root path and locales (the first is its default), or undefined when there is none. */
  website(
    websiteId: string,
    trx?: Tx,
  ): Promise<{ id: string; name: string; rootPath: string; locales: string[] } | undefined>;
  /**
   * The tree with what a page save would refuse left out by the same rules (script and raw-markup
   * nodes, handlers, directives, raw HTML props, script URLs), and a line per thing left out.
   */
  cleanTree(tree: ImportedNode): { tree: ImportedNode; dropped: string[] };
  /**
   * Creates a page (no `pageId`, or that page is gone) or saves the page `pageId`, through the page
   * service (its checks: 400 for a bad path or tree, 409 for a path another page has, 403 to publish
   * without `objects:publish`).
   */
  savePage(
    actor: Actor,
    input: {
      pageId?: string;
      websiteId: string;
      locale: string;
      path: string;
      title: string;
      seo: { title?: string; description?: string };
      content: ImportedNode;
      /** Left as it is when undefined (a new page is then a draft). */
      published?: boolean;
    },
    trx: Tx,
  ): Promise<{ id: string; created: boolean }>;
  /**
   * A page awaiting review (checked like a page save): the staged row of the same `source` still
   * staged is updated, else one is added. `publish`: goes live when promoted by a publisher.
   */
  stagePage(
    input: {
      websiteId: string;
      locale: string;
      path: string;
      title: string;
      seo: { title?: string; description?: string };
      content: ImportedNode;
      source: string;
      publish: boolean;
    },
    trx: Tx,
  ): Promise<{ id: string; created: boolean }>;
  /** Creates a snippet (no `snippetId`, or it is gone) or saves the snippet `snippetId`. */
  saveSnippet(
    actor: Actor,
    input: { snippetId?: string; websiteId: string; name: string; content: ImportedNode },
    trx: Tx,
  ): Promise<{ id: string; created: boolean }>;
  /**
   * Promotes the staged pages whose `source` starts with `sourcePrefix` (these `ids` only, when
   * given: 404 for one that is not such a staged page), all or nothing in `trx`.
   */
  promoteStaged(
    actor: Actor,
    filter: { sourcePrefix: string; ids?: readonly string[] },
    trx: Tx,
  ): Promise<Array<{ id: string; pageId: string; path: string }>>;
}

declare module '../../kernel/index.ts' {
  interface PluginContributions {
    documentImportTargets: DocumentImportTarget;
  }
}
