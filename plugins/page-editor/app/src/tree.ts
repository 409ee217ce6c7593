/** A node of a page or snippet tree, as the content API stores it (`plugins/content/README.md`). */
export interface ContentNode {
  type: string;
  props?: Record<string, unknown>;
  children?: ContentNode[];
  text?: string;
}

/** A node's place: child indexes from the root (`[]` is the root). */
export type NodePath = readonly number[];

/** The canvas marks each node's element with its path: `r`, `r.0`, `r.0.2`. */
export const pathKey = (path: NodePath): string => ['r', ...path].join('.');

export function parsePathKey(key: string): NodePath | null {
  const parts = key.split('.');
  if (parts[0] !== 'r') return null;
  const path = parts.slice(1).map(Number);
  return path.every((n) => Number.isInteger(n) && n >= 0) ? path : null;
}

export const samePath = (a: NodePath | null, b: NodePath | null): boolean =>
  a !== null && b !== null && a.length === b.length && a.every((n, i) => n === b[i]);

/** True when `inner` is `outer` or lies inside it. */
export const isWithin = (inner: NodePath, outer: NodePath): boolean =>
  inner.length >= outer.length && outer.every((n, i) => inner[i] === n);

export function nodeAt(root: ContentNode, path: NodePath): ContentNode | undefined {
  let node: ContentNode | undefined = root;
  for (const i of path) node = node?.children?.[i];
  return node;
}

/** A copy of the tree with the node at `path` replaced by `change(node)`; untouched subtrees are shared. */
export function updateAt(root: ContentNode, path: NodePath, change: (node: ContentNode) => ContentNode): ContentNode {
  if (path.length === 0) return change(root);
  const [first, ...rest] = path;
  const children = [...(root.children ?? [])];
  children[first] = updateAt(children[first], rest, change);
  return { ...root, children };
}

/** Inserts `node` as child number `index` of the node at `parent`. */
export function insertAt(root: ContentNode, parent: NodePath, index: number, node: ContentNode): ContentNode {
  return updateAt(root, parent, (p) => {
    const children = [...(p.children ?? [])];
    children.splice(Math.max(0, Math.min(index, children.length)), 0, node);
    return { ...p, children };
  });
}

export function removeAt(root: ContentNode, path: NodePath): ContentNode {
  if (path.length === 0) return root;
  return updateAt(root, path.slice(0, -1), (p) => ({
    ...p,
    children: (p.children ?? []).filter((_, i) => i !== path[path.length - 1]),
  }));
}

/**
 * Moves the node at `from` to sit at `index` among the children of `parent` (indexes as they are
 * before the move). Returns the tree and the node's new path; a node never moves into itself.
 */
export function moveNode(
  root: ContentNode,
  from: NodePath,
  parent: NodePath,
  index: number,
): { tree: ContentNode; path: NodePath } | null {
  if (from.length === 0 || isWithin(parent, from)) return null;
  const node = nodeAt(root, from);
  if (!node) return null;
  const fromParent = from.slice(0, -1);
  const fromIndex = from[from.length - 1];
  let target = [...parent];
  let at = index;
  // Removing the node first shifts later siblings (and the target parent, when it is one of them).
  if (samePath(fromParent, parent) && fromIndex < index) at -= 1;
  if (target.length > fromParent.length && isWithin(target, fromParent) && target[fromParent.length] > fromIndex)
    target = target.map((n, i) => (i === fromParent.length ? n - 1 : n));
  const tree = insertAt(removeAt(root, from), target, at, node);
  return { tree, path: [...target, Math.max(0, Math.min(at, (nodeAt(tree, target)?.children?.length ?? 1) - 1))] };
}

/** Node types that hold other nodes (blocks are dropped into them). */
const CONTAINERS = new Set([
  'section',
  'div',
  'header',
  'footer',
  'nav',
  'main',
  'aside',
  'article',
  'ul',
  'ol',
  'li',
  'figure',
  'blockquote',
  'table',
  'thead',
  'tbody',
  'tr',
  'td',
  'th',
  'details',
]);
export const isContainer = (node: ContentNode): boolean =>
  CONTAINERS.has(node.type) || (node.children?.length ?? 0) > 0;

/** One line of the outline: a node with its path and depth, in document order. */
export interface OutlineRow {
  key: string;
  path: NodePath;
  depth: number;
  node: ContentNode;
}

/** The tree in document order (iterative: no recursion over a tree of thousands of nodes). */
export function flatten(root: ContentNode): OutlineRow[] {
  const rows: OutlineRow[] = [];
  const stack: Array<{ node: ContentNode; path: NodePath }> = [{ node: root, path: [] }];
  while (stack.length) {
    const { node, path } = stack.pop()!;
    rows.push({ key: pathKey(path), path, depth: path.length, node });
    const children = node.children ?? [];
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], path: [...path, i] });
  }
  return rows;
}

/** What the outline shows for a node: its type and the start of its text or a telling prop. */
export function nodeLabel(node: ContentNode): string {
  const text =
    node.text ??
    (node.children?.every((c) => c.type === 'text') ? node.children.map((c) => c.text ?? '').join('') : '');
  const hint = text || (node.props?.alt as string) || (node.props?.href as string) || (node.props?.src as string) || '';
  const short = hint.length > 40 ? `${hint.slice(0, 40)}…` : hint;
  return short ? `${node.type}: ${short}` : node.type;
}
