import type { Actor, Tx } from '../../kernel/index.ts';

/**
 * What the figma plugin collects: the registry `designImportTargets`, where an imported design
 * becomes a page. The content plugin contributes the one target (its websites and pages), so the
 * import checks the tree by the same rules as a page saved through the API and creates the draft in
 * the import's transaction. The figma plugin provides no service.
 */
export interface DesignImportPage {
  id: string;
  websiteId: string;
  locale: string;
  path: string;
  title: string;
  published: boolean;
}

export interface DesignImportTarget {
  /** Throws 404 for an unknown website, 400 (field `locale`) for a locale the website does not have. */
  checkTarget(websiteId: string, locale: string, trx?: Tx): Promise<void>;
  /**
   * Throws the 400 a page save answers for this tree (size, depth, node count, script, bindings),
   * with the error path starting at `content`.
   */
  checkContent(content: unknown): Promise<void>;
  /** Creates an unpublished page through the page service's own create (its rules, events and checks). */
  createDraft(
    actor: Actor,
    input: { websiteId: string; locale: string; path: string; title: string; content: unknown },
    trx?: Tx,
  ): Promise<DesignImportPage>;
}

declare module '../../kernel/index.ts' {
  interface PluginContributions {
    designImportTargets: DesignImportTarget;
  }
}
