import { Code, Text } from '@mantine/core';

/** How much of a node tree the comparison shows. */
const MAX_LINES = 400;
const MAX_DEPTH = 40;

interface Line {
  depth: number;
  text: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A page's node tree as indented lines (`p: Welcome home`), walked iteratively with a depth and a line cap. */
export function outlineOf(tree: unknown): Line[] {
  const lines: Line[] = [];
  const stack: Array<[unknown, number]> = [[tree, 0]];
  while (stack.length > 0 && lines.length < MAX_LINES) {
    const [node, depth] = stack.pop()!;
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], depth]);
      continue;
    }
    if (!isRecord(node) || depth > MAX_DEPTH) continue;
    const text = typeof node.text === 'string' ? `: ${node.text.slice(0, 200)}` : '';
    lines.push({ depth, text: `${String(node.type ?? 'node')}${text}` });
    if (Array.isArray(node.children))
      for (let i = node.children.length - 1; i >= 0; i--) stack.push([node.children[i], depth + 1]);
  }
  return lines;
}

/** The outline of a node tree, for reading two versions side by side. */
export function NodeOutline(props: { tree: unknown; label: string }) {
  const lines = outlineOf(props.tree);
  if (lines.length === 0) return <Text size="sm">No content</Text>;
  return (
    <Code block aria-label={props.label} tabIndex={0}>
      {lines.map((l) => `${'  '.repeat(l.depth)}${l.text}`).join('\n')}
    </Code>
  );
}
