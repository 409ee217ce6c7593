import { type ContentNode, PLACEHOLDER, unsafeStringReason } from './node-tree.ts';

/** What a placeholder reads of a published object (the public read path's answer). */
export interface BoundItem {
  id: string;
  key: string | null;
  attributes: Record<string, unknown>;
}

/** Props whose text may hold placeholders; other props are copied as they are. */
const FILLED_PROPS = ['href', 'src', 'alt', 'title', 'className', 'aria-label'];
const URL_PROPS = new Set(['href', 'src']);

const scalarText = (v: unknown): string | null =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null;

/**
 * The text of a placeholder for one object: scalars as text, a list of scalars joined with ", ",
 * anything else (no value, null, objects, lists of objects) empty. Names are looked up as own
 * properties only (`{{constructor}}` finds nothing).
 */
export function placeholderText(item: BoundItem, name: string): string {
  if (name === '_id') return item.id;
  if (name === '_key') return item.key ?? '';
  let value: unknown = item.attributes;
  for (const part of name.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part)) return '';
    value = (value as Record<string, unknown>)[part];
  }
  const scalar = scalarText(value);
  if (scalar !== null) return scalar;
  if (Array.isArray(value) && value.every((v) => scalarText(v) !== null)) return value.map(scalarText).join(', ');
  return '';
}

const fill = (text: string, item: BoundItem) =>
  text.includes('{{') ? text.replace(PLACEHOLDER, (_, name: string) => placeholderText(item, name)) : text;

function nodeCount(nodes: readonly ContentNode[]): number {
  let count = 0;
  const stack = [...nodes];
  while (stack.length) {
    const node = stack.pop()!;
    count++;
    if (node.children) stack.push(...node.children);
  }
  return count;
}

/** One node with its placeholders filled (children are filled by the caller). */
function filledNode(node: ContentNode, item: BoundItem): ContentNode {
  const out: ContentNode = { type: node.type };
  if (node.props) {
    const props = { ...node.props };
    for (const name of FILLED_PROPS) {
      const value = props[name];
      if (typeof value !== 'string' || !value.includes('{{')) continue;
      const text = fill(value, item);
      // A value that became a script URL is left out, as the save would have refused it; so is an
      // empty address (`href=""` would link to the page itself).
      if (unsafeStringReason(name, text) || (text.trim() === '' && URL_PROPS.has(name))) delete props[name];
      else props[name] = text;
    }
    out.props = props;
  }
  if (node.text !== undefined) out.text = fill(node.text, item);
  return out;
}

/**
 * The template (a bound node's children) once per item, placeholders filled from that item, as new
 * nodes (the template is not changed). Stops before `maxNodes` nodes. Iterative: templates are
 * stored trees up to 64 levels deep.
 */
export function fillTemplate(template: readonly ContentNode[], items: readonly BoundItem[], maxNodes: number) {
  const perItem = Math.max(1, nodeCount(template));
  const count = Math.min(items.length, Math.floor(maxNodes / perItem));
  const out: ContentNode[] = [];
  for (let i = 0; i < count; i++) {
    const item = items[i];
    const stack: Array<{ from: ContentNode; into: ContentNode[] }> = [];
    for (let t = template.length - 1; t >= 0; t--) stack.push({ from: template[t], into: out });
    // Siblings are pushed in reverse, so each `into` receives its nodes in document order.
    while (stack.length) {
      const entry = stack.pop()!;
      const node = filledNode(entry.from, item);
      entry.into.push(node);
      if (entry.from.children) {
        const children: ContentNode[] = [];
        node.children = children;
        for (let c = entry.from.children.length - 1; c >= 0; c--)
          stack.push({ from: entry.from.children[c], into: children });
      }
    }
  }
  return out;
}
