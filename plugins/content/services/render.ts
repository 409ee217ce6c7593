import { type ContentNode, unsafePropNameReason, unsafeStringReason } from './node-tree.ts';
import { isExpanded } from './tree-expansion.ts';

/** Node types rendered as the HTML element of the same name. */
const ELEMENTS = new Set([
  'section',
  'div',
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'span',
  'a',
  'img',
  'ul',
  'ol',
  'li',
  'strong',
  'em',
  'b',
  'i',
  'u',
  'blockquote',
  'code',
  'pre',
  'br',
  'hr',
  'button',
  'table',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'th',
  'td',
  'caption',
  'figure',
  'figcaption',
  'header',
  'footer',
  'nav',
  'main',
  'aside',
  'article',
  'small',
  'sup',
  'sub',
  'label',
  'picture',
  'source',
  'video',
  'audio',
  'details',
  'summary',
  'dl',
  'dt',
  'dd',
  'time',
  'mark',
  'abbr',
]);
const VOID = new Set(['img', 'br', 'hr', 'source', 'input']);
/**
 * Form elements: never from a stored tree (a stored `form` or `input` node is a component, so no
 * author can put a form posting elsewhere on a page), only from the form block's expander
 * (form-node.ts), which marks every node it makes with `FORM_ELEMENT`.
 */
const FORM_ELEMENTS = new Set(['form', 'input', 'select', 'option', 'textarea', 'noscript']);

/** Set (never from JSON: a symbol) on the nodes the form block's expander makes (form-node.ts). */
export const FORM_ELEMENT: unique symbol = Symbol('a form element made by the form block');
export type FormElementNode = ContentNode & { [FORM_ELEMENT]?: true };
/** Props that are configuration, not attributes. */
const NOT_ATTRIBUTES = new Set(['binding', 'dataBinding', 'gatewayBindingId', 'alpine', 'pageSize', 'rows', 'columns']);
/** The spec's table element rule: the first page is rendered into HTML, never more than 1,000 rows. */
export const TABLE_MAX_ROWS = 1000;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

export interface RenderOptions {
  /** `strip-html-comments` setting: comment nodes are left out. */
  stripComments: boolean;
  /**
   * The editor's canvas: every element rendered from a node carries `data-cms-node` with the node's
   * path from the root (`r`, `r.0`, `r.0.2`: child indexes), so a click or an edit finds its node.
   * What an expander made of a node (a menu's links) is not the page's tree: only its outer element
   * is marked, with the path of the node it stands for.
   */
  annotate?: boolean;
}

/** The attribute the canvas marks each node's element with (see `RenderOptions.annotate`). */
export const NODE_PATH_ATTRIBUTE = 'data-cms-node';

/**
 * Set (never from JSON: a symbol) by an expander on a node whose children repeat a template of this
 * many children, one copy per data item: the canvas marks every copy with the template's paths, so a
 * click on any item selects the template's node in the editor's tree.
 */
export const REPEATED_TEMPLATE: unique symbol = Symbol('children repeat a template of this many nodes');
export type RepeatingNode = ContentNode & { [REPEATED_TEMPLATE]?: number };

function attributeName(prop: string): string {
  return prop === 'className' ? 'class' : prop === 'htmlFor' ? 'for' : prop;
}

function styleText(value: Record<string, unknown>): string {
  return Object.entries(value)
    .filter(([, v]) => typeof v === 'string' || typeof v === 'number')
    .map(([k, v]) => `${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}:${String(v)}`)
    .join(';');
}

function attributes(node: ContentNode): string {
  let out = '';
  for (const [prop, value] of Object.entries(node.props ?? {})) {
    if (NOT_ATTRIBUTES.has(prop) || value === null || value === false || value === undefined) continue;
    // Saves refuse these; a stored tree that never passed the save checks still draws none of them.
    if (unsafePropNameReason(prop)) continue;
    let text: string;
    if (prop === 'style' && typeof value === 'object' && !Array.isArray(value))
      text = styleText(value as Record<string, unknown>);
    else if (typeof value === 'object') continue;
    else text = value === true ? '' : String(value);
    if (unsafeStringReason(prop, text)) continue;
    out += ` ${attributeName(prop)}="${escapeHtml(text)}"`;
  }
  return out;
}

function tagOf(node: ContentNode): { tag: string; extra: string } {
  if (ELEMENTS.has(node.type)) return { tag: node.type, extra: '' };
  if ((node as FormElementNode)[FORM_ELEMENT] && FORM_ELEMENTS.has(node.type)) return { tag: node.type, extra: '' };
  if (node.type === 'link') return { tag: 'a', extra: '' };
  if (node.type === 'image') return { tag: 'img', extra: '' };
  if (node.type === 'heading') {
    const level = Math.min(6, Math.max(1, Number(node.props?.level) || 2));
    return { tag: `h${level}`, extra: '' };
  }
  // Components (gateway bindings, snippets, slots, editor widgets) render as a marked container the
  // site's script hydrates.
  return { tag: 'div', extra: ` data-node="${escapeHtml(node.type)}"` };
}

/**
 * A bound node's marks, on whatever element it renders as: the server-assigned binding id and its
 * mode, which is all the site's script needs to call `/api/v1/gateway/resolve` or `/submit`.
 * In the editor's canvas a node bound but not saved yet is marked too.
 */
function bindingMarks(node: ContentNode, annotate: boolean): string {
  const id = node.props?.gatewayBindingId;
  const binding = node.props?.binding;
  if (typeof id !== 'string') return annotate && binding ? ' data-cms-bound=""' : '';
  const mode =
    binding && typeof binding === 'object' && (binding as { mode?: unknown }).mode === 'submit' ? 'submit' : 'resolve';
  return (
    ` data-gateway-binding-id="${escapeHtml(id)}" data-gateway-binding-mode="${mode}"` +
    (annotate ? ' data-cms-bound=""' : '')
  );
}

/** Rows a table or table body shows: the first page of its `tr` children (the others are left out). */
function tableRowLimit(node: ContentNode): number {
  if (node.type !== 'table' && node.type !== 'tbody') return Number.POSITIVE_INFINITY;
  return Math.min(TABLE_MAX_ROWS, Math.max(1, Number(node.props?.pageSize) || TABLE_MAX_ROWS));
}

/**
 * HTML of a node tree; every text and attribute value is escaped (the tree was validated on write,
 * so no script URL or handler reaches here). Iterative: no recursion over stored trees.
 */
export function renderHtml(tree: ContentNode, options: RenderOptions): string {
  const out: string[] = [];
  const stack: Array<ContentNode | string> = [tree];
  // The node path of each stacked node, kept only when annotating (same index as `stack`).
  const paths: string[] = options.annotate ? ['r'] : [];
  // Defined once, not per node: a closure made in the loop costs on every element.
  const push = (entry: ContentNode | string, path: string) => {
    stack.push(entry);
    if (options.annotate) paths.push(path);
  };
  while (stack.length) {
    const item = stack.pop()!;
    const at = options.annotate ? paths.pop()! : '';
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    if (item.type === 'text') {
      out.push(escapeHtml(item.text ?? ''));
      continue;
    }
    if (item.type === 'comment') {
      if (!options.stripComments) out.push(`<!-- ${escapeHtml(item.text ?? '').replace(/--/g, '- -')} -->`);
      continue;
    }
    const { tag, extra } = tagOf(item);
    const mark = options.annotate && at ? ` ${NODE_PATH_ATTRIBUTE}="${at}"` : '';
    out.push(`<${tag}${extra}${bindingMarks(item, !!options.annotate)}${attributes(item)}${mark}>`);
    if (VOID.has(tag)) continue;
    push(`</${tag}>`, '');
    const children = item.children ?? [];
    const repeat = (item as RepeatingNode)[REPEATED_TEMPLATE] || Number.POSITIVE_INFINITY;
    const inner = at && !isExpanded(item);
    // Rows past a table's first page are left out: walking back, `row` is the 1-based row number.
    const limit = tableRowLimit(item);
    let row = 0;
    if (limit !== Number.POSITIVE_INFINITY) for (const child of children) if (child.type === 'tr') row++;
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child.type === 'tr' && limit !== Number.POSITIVE_INFINITY && row-- > limit) continue;
      push(child, inner ? `${at}.${i % repeat}` : '');
    }
    if (item.text) push(escapeHtml(item.text), '');
  }
  return out.join('');
}

/** A standalone e-mail document: inline, no script, the body centred in a 600px table. */
export function renderEmailHtml(title: string, tree: ContentNode, options: RenderOptions): string {
  const body = renderHtml(tree, options);
  return (
    '<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(title)}</title></head><body style="margin:0;padding:0">` +
    '<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0"><tr><td align="center">' +
    `<table role="presentation" width="600" cellpadding="0" cellspacing="0" border="0" style="max-width:600px;width:100%"><tr><td>${body}</td></tr></table>` +
    '</td></tr></table></body></html>'
  );
}
