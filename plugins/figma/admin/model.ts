import type { ApiAnswer, ApiBody } from '../../admin-ui/app/src/sdk/index.ts';

export type FigmaSettings = ApiAnswer<'/figma/settings', 'get'>;
export type ImportResult = ApiAnswer<'/figma/import', 'post'>;
export type ImportBody = ApiBody<'/figma/import', 'post'>;

/** Query keys of the plugin's screens (they start with the plugin id). */
export const KEYS = {
  settings: ['figma', 'settings'] as const,
  websites: ['figma', 'websites'] as const,
};

/** The page editor's address of a page (served outside the dashboard). */
export const editorUrl = (pageId: string) => `/cms-one/editor/pages/${pageId}`;

/** What a link-or-key field holds, as the import's body: a link gives `url`, anything else `fileKey`. */
export function sourceOf(text: string, frame: string): Pick<ImportBody, 'url' | 'fileKey' | 'nodeId'> {
  const value = text.trim();
  const nodeId = frame.trim() ? { nodeId: frame.trim().replace(/^(\d+)-(\d+)$/, '$1:$2') } : {};
  return /^https?:\/\//i.test(value) ? { url: value, ...nodeId } : { fileKey: value, ...nodeId };
}

interface TreeNode {
  type?: unknown;
  props?: { className?: unknown };
  children?: unknown;
  text?: unknown;
}

/** Counts of what the imported tree holds, for the preview (walked without recursion). */
export function summarise(content: unknown): {
  headings: number;
  paragraphs: number;
  buttons: number;
  images: number;
  containers: number;
  outline: Array<{ type: string; text: string }>;
} {
  const out = {
    headings: 0,
    paragraphs: 0,
    buttons: 0,
    images: 0,
    containers: 0,
    outline: [] as Array<{ type: string; text: string }>,
  };
  const stack: unknown[] = [content];
  const textOf = (n: TreeNode): string => {
    const parts: string[] = [];
    const inner: unknown[] = [n];
    while (inner.length && parts.join('').length < 120) {
      const x = inner.shift() as TreeNode;
      if (typeof x?.text === 'string') parts.push(x.text);
      if (Array.isArray(x?.children)) inner.unshift(...x.children);
    }
    return parts.join('').slice(0, 120);
  };
  while (stack.length) {
    const n = stack.pop() as TreeNode;
    if (!n || typeof n !== 'object') continue;
    const type = String(n.type);
    if (/^h[1-6]$/.test(type)) {
      out.headings++;
      if (out.outline.length < 20) out.outline.push({ type, text: textOf(n) });
    } else if (type === 'p') out.paragraphs++;
    else if (type === 'img') out.images++;
    else if (type === 'a' && n.props?.className === 'button') out.buttons++;
    else if (type === 'div' || type === 'section') out.containers++;
    if (Array.isArray(n.children)) for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
  }
  return out;
}
