import type { ContentNode } from './tree.ts';

/**
 * Formatted text of a block, between the node tree and the rich text editor (TipTap's JSON):
 * inline nodes `strong`/`b`, `em`/`i`, `u`, `code`, `a` (with `href`), `br` and text. A block whose
 * children are all inline is edited as rich text; the editor's paragraphs come back as one line of
 * inline nodes separated by `br` (a block is one element of the page).
 */
const MARK_OF: Record<string, string> = {
  strong: 'bold',
  b: 'bold',
  em: 'italic',
  i: 'italic',
  u: 'underline',
  code: 'code',
  a: 'link',
};
const NODE_OF: Record<string, string> = { bold: 'strong', italic: 'em', underline: 'u', code: 'code', link: 'a' };
/** Outermost first when marks are turned back into nested nodes. */
const MARK_ORDER = ['link', 'bold', 'italic', 'underline', 'code'];

export interface RichMark {
  type: string;
  attrs?: Record<string, unknown>;
}
export interface RichInline {
  type: 'text' | 'hardBreak';
  text?: string;
  marks?: RichMark[];
}
export interface RichDoc {
  type: 'doc';
  content: Array<{ type: 'paragraph'; content?: RichInline[] }>;
}

/** True when a block's content is inline only (and so can be edited as rich text). */
export function isInlineBlock(node: ContentNode): boolean {
  const stack = [...(node.children ?? [])];
  let count = 0;
  while (stack.length) {
    const child = stack.pop()!;
    if (++count > 2000) return false;
    if (child.type === 'text' || child.type === 'br') continue;
    if (!Object.hasOwn(MARK_OF, child.type)) return false;
    stack.push(...(child.children ?? []));
  }
  return true;
}

/** A block's text and inline children as the editor's document (one paragraph). */
export function toRichDoc(node: ContentNode): RichDoc {
  const out: RichInline[] = [];
  const walk = (n: ContentNode, marks: RichMark[], depth: number) => {
    if (depth > 16) return;
    if (n.type === 'br') return void out.push({ type: 'hardBreak' });
    const own: RichMark[] =
      n.type === 'text' || !Object.hasOwn(MARK_OF, n.type)
        ? marks
        : [
            ...marks,
            MARK_OF[n.type] === 'link'
              ? { type: 'link', attrs: { href: String(n.props?.href ?? '') } }
              : { type: MARK_OF[n.type] },
          ];
    if (n.text) out.push({ type: 'text', text: n.text, ...(own.length ? { marks: own } : {}) });
    for (const child of n.children ?? []) walk(child, own, depth + 1);
  };
  walk({ type: 'text', text: node.text }, [], 0);
  for (const child of node.children ?? []) walk(child, [], 0);
  return { type: 'doc', content: [{ type: 'paragraph', ...(out.length ? { content: out } : {}) }] };
}

/** The editor's document as the block's content: plain `text` when nothing is formatted, else inline children. */
export function fromRichDoc(block: ContentNode, doc: RichDoc): ContentNode {
  const inline: RichInline[] = [];
  doc.content.forEach((paragraph, i) => {
    if (i > 0) inline.push({ type: 'hardBreak' });
    inline.push(...(paragraph.content ?? []));
  });
  const { text: _text, children: _children, ...rest } = block;
  if (inline.every((part) => part.type === 'text' && !part.marks?.length))
    return { ...rest, text: inline.map((part) => part.text ?? '').join('') };
  const children: ContentNode[] = inline.map((part) => {
    if (part.type === 'hardBreak') return { type: 'br' };
    const marks = [...(part.marks ?? [])].sort((a, b) => MARK_ORDER.indexOf(a.type) - MARK_ORDER.indexOf(b.type));
    let node: ContentNode = { type: 'text', text: part.text ?? '' };
    for (let m = marks.length - 1; m >= 0; m--) {
      const mark = marks[m];
      const type = NODE_OF[mark.type];
      if (!type) continue;
      node =
        type === 'a'
          ? { type, props: { href: String(mark.attrs?.href ?? '') }, children: [node] }
          : { type, children: [node] };
    }
    return node;
  });
  return { ...rest, children };
}
