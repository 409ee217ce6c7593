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
  /** A staff preview (the canvas, a staff route): bound data is read from the primary, never the read replica. */
  staff?: boolean;
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

/** The paths (child indexes) of the nodes `matches` picks, without descending into one (iterative). */
export function nodePaths(tree: ContentNode, matches: (node: ContentNode) => boolean): number[][] {
  const found: number[][] = [];
  const stack: Array<[ContentNode, number[]]> = [[tree, []]];
  while (stack.length) {
    const [node, path] = stack.pop()!;
    if (matches(node)) {
      found.push(path);
      continue;
    }
    const children = node.children ?? [];
    for (let i = children.length - 1; i >= 0; i--) stack.push([children[i], [...path, i]]);
  }
  return found;
}

/** A copy of the tree with the node at `indexes` replaced; only its ancestors are copied (iterative). */
export function replaceAt(root: ContentNode, indexes: readonly number[], next: ContentNode): ContentNode {
  if (indexes.length === 0) return next;
  const top: ContentNode = { ...root, children: [...(root.children ?? [])] };
  let parent = top;
  for (let d = 0; d < indexes.length - 1; d++) {
    const child = parent.children![indexes[d]];
    const copy = { ...child, children: [...(child.children ?? [])] };
    parent.children![indexes[d]] = copy;
    parent = copy;
  }
  parent.children![indexes[indexes.length - 1]] = next;
  return top;
}
