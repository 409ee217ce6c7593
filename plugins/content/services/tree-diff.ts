import { walkNodes, type ContentNode } from './node-tree.ts';

/** Node paths added, removed and changed (type, props or text) between two trees. */
export function diffTrees(
  from: ContentNode,
  to: ContentNode,
): { added: string[]; removed: string[]; changed: string[] } {
  const signatures = (tree: ContentNode) => {
    const map = new Map<string, string>();
    walkNodes(tree, 'content', (node, path) =>
      map.set(path, JSON.stringify([node.type, node.props ?? null, node.text ?? null])),
    );
    return map;
  };
  const a = signatures(from);
  const b = signatures(to);
  const added = [...b.keys()].filter((k) => !a.has(k));
  const removed = [...a.keys()].filter((k) => !b.has(k));
  const changed = [...b.keys()].filter((k) => a.has(k) && a.get(k) !== b.get(k));
  return { added, removed, changed };
}
