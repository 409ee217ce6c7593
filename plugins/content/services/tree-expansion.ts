import type { ContentNode } from './node-tree.ts';

/** Where a tree is shown: the website and locale a node standing for data is expanded for. */
export interface ExpansionContext {
  websiteId: string | null;
  locale: string | null;
  /** The page being shown (its id and its path inside the website), when it is a page. */
  page?: { id: string; path: string } | null;
  /**
   * Scripts (same-origin paths) the expanded tree needs on the public page, added by expanders (the
   * form block adds its script); the page document loads them. The canvas draws without them.
   */
  scripts?: Set<string>;
}

// A mark no stored tree can carry (JSON has no symbols): the node was made by an expander.
const EXPANDED = Symbol('expanded');

/** Marks the node an expander put in place of a data node (the canvas marks only its outer element). */
export function markExpanded<T extends ContentNode>(node: T): T {
  Object.defineProperty(node, EXPANDED, { value: true, enumerable: false });
  return node;
}

export const isExpanded = (node: ContentNode): boolean => (node as { [EXPANDED]?: boolean })[EXPANDED] === true;

/**
 * Turns the nodes it knows (nodes that stand for data read at render time) into plain nodes, and
 * returns the tree (a new one where it changed anything; the input is never mutated). The renderer
 * is synchronous and reads nothing: what a tree needs from the database is read here, first.
 */
export type TreeExpander = (tree: ContentNode, context: ExpansionContext) => Promise<ContentNode>;

/** Runs every expander in order: each sees the tree the previous one returned. */
export async function expandTree(
  expanders: readonly TreeExpander[],
  tree: ContentNode,
  context: ExpansionContext,
): Promise<ContentNode> {
  let out = tree;
  for (const expand of expanders) out = await expand(out, context);
  return out;
}
