import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import MarkdownIt, { type MarkdownIt as MarkdownItInstance, type Token } from 'markdown-it';
import type { DocsWarning } from './model.ts';

/**
 * The part of highlight.js used here. Its own type declarations pull the DOM library into the whole
 * program, so it is loaded untyped and described by this interface instead.
 */
interface Highlighter {
  getLanguage(name: string): object | undefined;
  highlight(code: string, options: { language: string; ignoreIllegals: boolean }): { value: string };
}
const hljs = createRequire(import.meta.url)('highlight.js') as Highlighter;

/** Deepest nesting of blocks or inline markup rendered; deeper input is cut there (never a crash). */
const MAX_NESTING = 40;
/** Code blocks larger than this are shown plain (highlighting stays fast). */
const MAX_HIGHLIGHT_CHARS = 100_000;
/** Highlighted code blocks kept (by language and text), across documents and renders. */
const HIGHLIGHT_CACHE = 5_000;
/** Plain text of a document kept for the search index. */
const MAX_INDEX_TEXT = 100_000;

export interface Heading {
  depth: number;
  text: string;
  id: string;
}

/** What a link or image of a document points at, once resolved against the folder. */
export type Resolved =
  | { kind: 'document'; href: string; visibility: 'public' | 'private' }
  | { kind: 'file'; href: string }
  | { kind: 'missing' };

export interface RenderContext {
  /** The document's path (for warnings). */
  path: string;
  /** The document's own visibility: a public one linking to a private one is warned about. */
  visibility: 'public' | 'private';
  /** Lines before the Markdown body (front matter), so warnings name the file's own line. */
  lineOffset: number;
  /** A relative link target (decoded, without `#...`) resolved against the document's file. */
  resolve(target: string): Resolved;
}

export interface Rendered {
  title: string | undefined;
  html: string;
  headings: Heading[];
  warnings: DocsWarning[];
  /** Plain text for the search index. */
  text: string;
}

const highlighted = new Map<string, string>();

/** Code highlighted on the server, cached by language and text (highlight.js, no client script). */
function highlight(code: string, lang: string): string {
  const language = lang && hljs.getLanguage(lang) ? lang : undefined;
  if (!language || code.length > MAX_HIGHLIGHT_CHARS) return '';
  const key = createHash('sha1').update(language).update('\0').update(code).digest('base64');
  const hit = highlighted.get(key);
  if (hit !== undefined) return hit;
  const html = hljs.highlight(code, { language, ignoreIllegals: true }).value;
  if (highlighted.size >= HIGHLIGHT_CACHE) highlighted.delete(highlighted.keys().next().value as string);
  highlighted.set(key, html);
  return html;
}

/**
 * CommonMark plus GitHub tables, strikethrough and task lists. Raw HTML is escaped (`html: false`),
 * and markdown-it's link check refuses `javascript:`, `vbscript:`, `file:` and non-image `data:`
 * URLs, so no script, event attribute or script URL reaches a page.
 */
const md: MarkdownItInstance = new MarkdownIt('default', {
  html: false,
  linkify: true,
  typographer: false,
  maxNesting: MAX_NESTING,
  highlight: (code: string, lang: string): string => {
    const body = highlight(code, lang);
    if (!body) return '';
    return `<pre><code class="hljs language-${md.utils.escapeHtml(lang)}">${body}</code></pre>`;
  },
});

/** Container markers (quotes, list items) a line opens at most: each list takes two nesting levels. */
const MAX_LINE_MARKERS = Math.floor(MAX_NESTING / 2) - 2;
const LEADING_MARKERS = /^[ \t]*(?:(?:>|[-*+](?=[ \t])|\d{1,9}[.)](?=[ \t]))[ \t]*)+/gm;
const ONE_MARKER = /(?:>|[-*+](?=[ \t])|\d{1,9}[.)](?=[ \t]))[ \t]*/g;

/**
 * Cuts a line's run of quote and list markers to MAX_LINE_MARKERS. markdown-it stops the whole
 * document at its nesting limit (everything after a too-deep block would vanish); cut here, the deep
 * block renders at the limit and the rest of the document follows it.
 */
export function cutNesting(markdown: string): string {
  return markdown.replace(LEADING_MARKERS, (run) => {
    let count = 0;
    let end = run.length;
    for (const m of run.matchAll(ONE_MARKER)) {
      if (++count > MAX_LINE_MARKERS) {
        end = m.index;
        break;
      }
    }
    return count > MAX_LINE_MARKERS ? run.slice(0, end) : run;
  });
}

/** A stable anchor: lower-case letters and digits of any script, words joined by `-`. */
export function slugify(text: string): string {
  const slug = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/[\s_]+/g, '-')
    .replace(/-+/g, '-')
    .slice(0, 80);
  return slug || 'section';
}

const inlineText = (token: Token): string =>
  (token.children ?? [])
    .filter((c) => c.type === 'text' || c.type === 'code_inline')
    .map((c) => c.content)
    .join('');

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

function decode(href: string): string {
  try {
    return decodeURI(href);
  } catch {
    return href;
  }
}

/** Renders one document's Markdown body (front matter already taken off). */
export function renderMarkdown(markdown: string, ctx: RenderContext): Rendered {
  const tokens = md.parse(cutNesting(markdown), {});
  const headings: Heading[] = [];
  const warnings: DocsWarning[] = [];
  const used = new Map<string, number>();
  const text: string[] = [];
  let textLength = 0;
  let title: string | undefined;
  const addText = (s: string) => {
    if (textLength >= MAX_INDEX_TEXT || !s) return;
    text.push(s);
    textLength += s.length + 1;
  };
  const lineOf = (t: Token | undefined) => (t?.map ? t.map[0] + 1 + ctx.lineOffset : undefined);

  const rewrite = (token: Token, attr: 'href' | 'src', line: number | undefined) => {
    const got = token.attrGet(attr);
    const raw = typeof got === 'string' ? got : null;
    if (raw === null || raw === '' || raw.startsWith('#') || raw.startsWith('/') || SCHEME.test(raw)) return;
    const hash = raw.indexOf('#');
    const target = decode(hash < 0 ? raw : raw.slice(0, hash));
    const fragment = hash < 0 ? '' : raw.slice(hash);
    const found = ctx.resolve(target);
    if (found.kind === 'missing') {
      const image = attr === 'src';
      warnings.push({
        code: image ? 'MISSING_IMAGE' : 'BROKEN_LINK',
        path: ctx.path,
        line,
        target,
        message: image
          ? `The image ${target} is not in the folder`
          : `The link to ${target} leads to no document or file`,
      });
      return;
    }
    if (found.kind === 'document' && found.visibility === 'private' && ctx.visibility === 'public')
      warnings.push({
        code: 'LINK_TO_PRIVATE',
        path: ctx.path,
        line,
        target,
        message: `This public document links to the private document ${target}; the public site shows the link as text`,
      });
    token.attrSet(attr, found.href + (found.kind === 'document' ? fragment : ''));
    if (found.kind === 'document' && found.visibility === 'private') token.attrSet('data-private', 'true');
  };

  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.type === 'heading_open') {
      const inline = tokens[i + 1];
      const content = inline ? inlineText(inline) : '';
      const depth = Number(token.tag.slice(1));
      const base = slugify(content);
      const n = used.get(base) ?? 0;
      used.set(base, n + 1);
      const id = n === 0 ? base : `${base}-${n}`;
      token.attrSet('id', id);
      headings.push({ depth, text: content, id });
      if (depth === 1 && title === undefined) title = content;
    } else if (token.type === 'fence' || token.type === 'code_block') {
      addText(token.content);
    } else if (token.type === 'inline') {
      addText(inlineText(token));
      const children = token.children ?? [];
      // Task lists: a list item's paragraph starting with `[ ]` or `[x]`.
      if (tokens[i - 1]?.type === 'paragraph_open' && tokens[i - 2]?.type === 'list_item_open') {
        const first = children[0];
        const box = first?.type === 'text' ? /^\[([ xX])\]\s/.exec(first.content) : null;
        if (first && box) {
          first.content = first.content.slice(box[0].length);
          const checkbox = new (token.constructor as new (type: string, tag: string, nesting: number) => Token)(
            'html_inline',
            '',
            0,
          );
          const done = box[1] !== ' ';
          checkbox.content = `<input type="checkbox" disabled${done ? ' checked' : ''} aria-label="${done ? 'Done' : 'Not done'}"> `;
          children.unshift(checkbox);
          tokens[i - 2].attrJoin('class', 'task-list-item');
        }
      }
      for (const child of children) {
        if (child.type === 'link_open') rewrite(child, 'href', lineOf(token));
        else if (child.type === 'image') rewrite(child, 'src', lineOf(token));
      }
    }
  }
  const html = md.renderer.render(tokens, md.options, {});
  return { title, html: withAnchors(html), headings, warnings, text: text.join('\n') };
}

/** A visible anchor link at the end of every heading that has an id. */
function withAnchors(html: string): string {
  return html.replace(
    /<h([1-6]) id="([^"]+)">([\s\S]*?)<\/h\1>/g,
    (_m, depth: string, id: string, inner: string) =>
      `<h${depth} id="${id}">${inner} <a class="anchor" href="#${id}"><span class="visually-hidden">Link to this section</span>#</a></h${depth}>`,
  );
}

/** HTML-escapes text for a document outside the Markdown renderer. */
export const escapeHtml = (s: string) => md.utils.escapeHtml(s);
