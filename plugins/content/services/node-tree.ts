import { badRequest } from '../../../kernel/index.ts';
import { cssAsParsed } from './css-text.ts';

/**
 * The one content schema of pages, snippets, templates and layouts: a tree of nodes
 * `{ type, props?, children?, text? }`. Trees come from browsers and imports, so they are walked
 * iteratively with caps on depth, node count and size, and anything that could run script is
 * refused with a 400 naming the path of the bad part (`content.children.3.props.href`).
 */
export interface ContentNode {
  type: string;
  props?: Record<string, unknown>;
  children?: ContentNode[];
  text?: string;
}

export const NODE_LIMITS = { depth: 64, nodes: 20_000, textChars: 100_000, propsPerNode: 64, propDepth: 8 } as const;

const TYPE = /^[a-z][a-z0-9-]{0,63}$/;
const PROP_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;
/** Node types that are script or raw markup in disguise; never stored. */
const REFUSED_TYPES = new Set([
  'script',
  'style',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'html',
  'raw',
  'raw-html',
  'svg',
  'math',
  'base',
  'meta',
  'link',
  'noscript',
]);
/** Props that would carry raw HTML. */
const RAW_HTML_PROPS = new Set(['innerhtml', 'outerhtml', 'dangerouslysetinnerhtml', 'html', 'srcdoc']);
/** Props whose value is a URL: only http(s), mailto, tel, relative and inline images. */
const URL_PROPS = new Set([
  'href',
  'src',
  'action',
  'formaction',
  'poster',
  'cite',
  'background',
  'srcset',
  'xlink:href',
  'data',
  'ping',
  'manifest',
  'icon',
]);
const SCRIPT_SCHEME = /^(javascript|vbscript|livescript|mocha):/;
const SAFE_DATA_URL = /^data:image\/(png|jpeg|webp|gif|avif);/;

/** Lower case without whitespace and control characters: how a browser reads a URL scheme. */
function normalizedScheme(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: browsers drop control characters in a scheme
  return value.replace(/[\u0000-\u0020\u007f-\u009f]+/g, '').toLowerCase();
}

/**
 * Why `name` may not be a prop (an attribute on the page), or null when it may. Also asked at render
 * time, so that a tree that never passed these checks (put in by SQL, an old row) draws no handler.
 */
export function unsafePropNameReason(name: string): string | null {
  if (!PROP_NAME.test(name)) return `Property name "${name.slice(0, 64)}" is not allowed`;
  const lower = name.toLowerCase();
  if (/^on[a-z]/.test(lower)) return 'Inline event handlers are not allowed';
  if (lower.startsWith('x-') || lower.startsWith('@') || lower.startsWith(':'))
    return 'Inline Alpine directives are not allowed; name a preset from /cms-one/settings/alpine-presets';
  if (RAW_HTML_PROPS.has(lower)) return 'Raw HTML is not allowed in content';
  return null;
}

function checkPropName(name: string, path: string): void {
  const reason = unsafePropNameReason(name);
  if (reason) throw badRequest(reason, path);
}

/**
 * Why a string may not stand in a prop named `name` (script URLs, non-image data URLs in URL props,
 * script in styles), or null when it may. Also used on values put into a tree at render time.
 */
export function unsafeStringReason(name: string, value: string): string | null {
  const scheme = normalizedScheme(value);
  if (SCRIPT_SCHEME.test(scheme) || scheme.startsWith('data:text/html') || scheme.startsWith('data:application/'))
    return 'Script URLs are not allowed';
  const lower = name.toLowerCase();
  if (URL_PROPS.has(lower) && scheme.startsWith('data:') && !SAFE_DATA_URL.test(scheme))
    return 'Only image data URLs are allowed';
  if (lower === 'style' && /javascript:|expression\(|behavior:|-moz-binding/.test(cssAsParsed(value)))
    return 'Script in styles is not allowed';
  return null;
}

function checkString(name: string, value: string, path: string): void {
  if (value.length > NODE_LIMITS.textChars)
    throw badRequest(`Text longer than ${NODE_LIMITS.textChars} characters`, path);
  const reason = unsafeStringReason(name, value);
  if (reason) throw badRequest(reason, path);
}

/** Checks one prop value (scalars, or arrays/objects of them a few levels deep), iteratively. */
function checkPropValue(name: string, value: unknown, path: string): void {
  const stack: Array<{ v: unknown; p: string; d: number }> = [{ v: value, p: path, d: 0 }];
  while (stack.length) {
    const { v, p, d } = stack.pop()!;
    if (v === null || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw badRequest('Numbers must be finite', p);
      continue;
    }
    if (typeof v === 'string') {
      checkString(name, v, p);
      continue;
    }
    if (typeof v !== 'object') throw badRequest('Unsupported value', p);
    if (d >= NODE_LIMITS.propDepth)
      throw badRequest(`Property values nest deeper than ${NODE_LIMITS.propDepth} levels`, p);
    if (Array.isArray(v)) {
      for (const [i, item] of v.entries()) stack.push({ v: item, p: `${p}.${i}`, d: d + 1 });
    } else {
      for (const [k, item] of Object.entries(v)) {
        if (/^on[a-z]/i.test(k)) throw badRequest('Inline event handlers are not allowed', `${p}.${k}`);
        stack.push({ v: item, p: `${p}.${k}`, d: d + 1 });
      }
    }
  }
}

/**
 * Validates a node tree in place (nothing is rewritten) and answers its node count. `field` is the
 * name the error paths start with (`content`). `maxBytes` caps the stored JSON.
 */
export function validateNodeTree(tree: unknown, field: string, maxBytes: number): ContentNode {
  const size = Buffer.byteLength(JSON.stringify(tree ?? null));
  if (size > maxBytes) throw badRequest(`Content is larger than ${maxBytes} bytes`, field);
  const stack: Array<{ node: unknown; path: string; depth: number }> = [{ node: tree, path: field, depth: 0 }];
  let count = 0;
  while (stack.length) {
    const { node, path, depth } = stack.pop()!;
    if (++count > NODE_LIMITS.nodes) throw badRequest(`Content has more than ${NODE_LIMITS.nodes} nodes`, field);
    if (depth > NODE_LIMITS.depth) throw badRequest(`Content nests deeper than ${NODE_LIMITS.depth} levels`, path);
    if (node === null || typeof node !== 'object' || Array.isArray(node))
      throw badRequest('A node must be an object', path);
    const n = node as Record<string, unknown>;
    for (const key of Object.keys(n)) {
      if (key !== 'type' && key !== 'props' && key !== 'children' && key !== 'text')
        throw badRequest(`Unknown node member "${key.slice(0, 64)}"`, `${path}.${key}`);
    }
    if (typeof n.type !== 'string' || !TYPE.test(n.type))
      throw badRequest('Node type must be lower-case letters, digits and dashes', `${path}.type`);
    if (REFUSED_TYPES.has(n.type))
      throw badRequest(`Node type "${n.type}" is not allowed (script or raw markup)`, `${path}.type`);
    if (n.text !== undefined) {
      if (typeof n.text !== 'string') throw badRequest('Text must be a string', `${path}.text`);
      if (n.text.length > NODE_LIMITS.textChars)
        throw badRequest(`Text longer than ${NODE_LIMITS.textChars} characters`, `${path}.text`);
    }
    if (n.props !== undefined) {
      if (n.props === null || typeof n.props !== 'object' || Array.isArray(n.props))
        throw badRequest('Props must be an object', `${path}.props`);
      const entries = Object.entries(n.props);
      if (entries.length > NODE_LIMITS.propsPerNode)
        throw badRequest(`More than ${NODE_LIMITS.propsPerNode} props`, `${path}.props`);
      for (const [name, value] of entries) {
        const propPath = `${path}.props.${name}`;
        checkPropName(name, propPath);
        checkPropValue(name, value, propPath);
      }
    }
    if (n.children !== undefined) {
      if (!Array.isArray(n.children)) throw badRequest('Children must be an array', `${path}.children`);
      for (let i = n.children.length - 1; i >= 0; i--)
        stack.push({ node: n.children[i], path: `${path}.children.${i}`, depth: depth + 1 });
    }
  }
  return tree as ContentNode;
}

/** Visits every node (depth first, iteratively) with its path; the tree was validated before. */
export function walkNodes(tree: ContentNode, field: string, visit: (node: ContentNode, path: string) => void): void {
  const stack: Array<{ node: ContentNode; path: string }> = [{ node: tree, path: field }];
  while (stack.length) {
    const { node, path } = stack.pop()!;
    visit(node, path);
    const children = node.children ?? [];
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], path: `${path}.children.${i}` });
  }
}

/** A data binding's placeholder: `{{title}}`, `{{ seo.metaTitle }}`, `{{tags.0}}`, `{{_id}}`, `{{_key}}`. */
export const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*\}\}/g;

/** Plain text of a tree for search: node texts plus alt and title props, in document order. */
export function textOf(tree: ContentNode, maxChars = 200_000): string {
  const parts: string[] = [];
  let length = 0;
  walkNodes(tree, '', (node) => {
    if (length > maxChars) return;
    for (const raw of [node.text, node.props?.alt, node.props?.title]) {
      // A data binding's placeholders are no words of the page: "Price: {{price}}" is found as "Price:".
      const piece = typeof raw === 'string' && raw.includes('{{') ? raw.replace(PLACEHOLDER, ' ') : raw;
      if (typeof piece === 'string' && piece.trim()) {
        parts.push(piece.trim());
        length += piece.length + 1;
      }
    }
  });
  return parts.join(' ').slice(0, maxChars);
}

/**
 * A copy of a tree from elsewhere (an import) with everything the save checks refuse left out, by
 * the same rules: nodes of a refused or malformed type (with what they hold), props whose name is a
 * handler, a directive or raw HTML, and string props that carry script (script URLs, non-image data
 * URLs, script in styles). Answers the cleaned tree and a line per thing left out. Size, depth and
 * node count are not trimmed: the save checks refuse those with a 400.
 */
export function sanitizeNodeTree(tree: unknown): { tree: ContentNode; dropped: string[] } {
  const dropped: string[] = [];
  const clean = (node: unknown, path: string, depth: number): ContentNode | null => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) {
      dropped.push(`${path}: not a node`);
      return null;
    }
    const n = node as Record<string, unknown>;
    if (typeof n.type !== 'string' || !TYPE.test(n.type) || REFUSED_TYPES.has(n.type)) {
      dropped.push(`${path}: node type "${String(n.type).slice(0, 64)}" (script or raw markup)`);
      return null;
    }
    const out: ContentNode = { type: n.type };
    if (typeof n.text === 'string') out.text = n.text;
    if (n.props && typeof n.props === 'object' && !Array.isArray(n.props)) {
      const props: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(n.props)) {
        const reason =
          unsafePropNameReason(name) ??
          (typeof value === 'string' ? unsafeStringReason(name, value) : null) ??
          (value !== null && typeof value === 'object' ? 'object values are not kept' : null);
        if (reason) dropped.push(`${path}.props.${name.slice(0, 64)}: ${reason}`);
        else props[name] = value;
      }
      if (Object.keys(props).length > 0) out.props = props;
    }
    if (Array.isArray(n.children) && depth < NODE_LIMITS.depth) {
      const children: ContentNode[] = [];
      n.children.forEach((c, i) => {
        const kept = clean(c, `${path}.children.${i}`, depth + 1);
        if (kept) children.push(kept);
      });
      out.children = children;
    } else if (Array.isArray(n.children)) dropped.push(`${path}: nests deeper than ${NODE_LIMITS.depth} levels`);
    return out;
  };
  return { tree: clean(tree, 'content', 0) ?? { type: 'div', children: [] }, dropped };
}
