import type { ImportedNode } from '../ports.ts';
import type { PimcoreEditable } from '../store/pimcore-reader.ts';
import { type PhpData, phpUnserialize } from './php-unserialize.ts';

/**
 * Pimcore document editables (`documents_editables`) as a node tree. Names follow Pimcore's
 * hierarchical naming: an editable inside a block or areablock is `<block>:<index>.<name>`, nested
 * ones `<outer>:<i>.<inner>:<j>.<name>`. Serialized values are read by `phpUnserialize` (never
 * run; PHP class names dropped). What a type becomes:
 *
 * - input, textarea, numeric, date: a `p` with the text;
 * - wysiwyg: a `div` holding the HTML as nodes (cleaned by the content rules afterwards);
 * - image: an `img` (`src` the library file when the asset was imported, `alt`);
 * - link: an `a` (`href`: the page path of an internal document, the library file of an asset, or
 *   the direct URL; `target`, `title`, the text);
 * - areablock: a `div` with a `section` per visible brick (`data-area` its brick name), block: a
 *   `div` with a `div` per item, each holding the item's editables;
 * - select: a `span` with the value (`data-value`), checkbox: a `span` with `data-checked`;
 * - relation, relations: `relation` nodes (`targetType`, `pimcoreId`, `href` when the target is a
 *   document or asset this import knows), snippet: a `snippet` node (`snippetId`);
 * - anything else (video, embed, table, pdf, multiselect, renderlet, scheduledblock...): the
 *   documented fallback, a `pimcore-editable` node with `data-type` and the value as JSON in
 *   `data-value`, and a warning.
 *
 * Top-level editables and those of one item are in name order (Pimcore keeps no order; the template
 * did); items keep their block's order.
 */
export interface TreeLookups {
  /** The page path here of a Pimcore document, when this import knows it. */
  documentPath(id: number): string | undefined;
  /** The library URL of a Pimcore asset, when it was imported. */
  assetUrl(id: number): string | undefined;
  /** The snippet here of a Pimcore snippet document. */
  snippetId(id: number): string | undefined;
}

const MAX_DEPTH = 20;

export function editablesTree(
  editables: readonly PimcoreEditable[],
  lookups: TreeLookups,
  warnings: string[],
): ImportedNode {
  const childrenOf = (prefix: string): PimcoreEditable[] =>
    editables.filter((e) => {
      if (!e.name.startsWith(prefix)) return false;
      const rest = e.name.slice(prefix.length);
      return rest.length > 0 && !rest.includes('.') && !rest.includes(':');
    });

  const node = (e: PimcoreEditable, depth: number): ImportedNode | null => {
    const label = e.name.split('.').pop() ?? e.name;
    const mark = { 'data-editable': label };
    if (e.tooLarge) {
      warnings.push(`editable ${e.name}: larger than the import reads; left out`);
      return null;
    }
    const raw = e.data ?? '';
    let value: PhpData;
    try {
      value = SERIALIZED.has(e.type) ? (raw === '' ? null : phpUnserialize(raw)) : raw;
    } catch (err) {
      warnings.push(`editable ${e.name}: ${(err as Error).message}; left out`);
      return null;
    }
    const record = (v: PhpData): Record<string, PhpData> => (v && typeof v === 'object' && !Array.isArray(v) ? v : {});
    const str = (v: PhpData | undefined): string | undefined =>
      typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
    const num = (v: PhpData | undefined): number | undefined => {
      const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : Number.NaN;
      return Number.isInteger(n) && n > 0 ? n : undefined;
    };
    switch (e.type) {
      case 'input':
      case 'textarea':
      case 'numeric':
        return { type: 'p', props: mark, text: raw };
      case 'date': {
        const ts = Number(raw);
        return { type: 'p', props: mark, text: Number.isFinite(ts) && raw !== '' ? isoDate(ts) : raw };
      }
      case 'wysiwyg':
        return { type: 'div', props: mark, children: htmlToNodes(raw) };
      case 'select':
        return { type: 'span', props: { ...mark, 'data-value': raw }, text: raw };
      case 'checkbox':
        return { type: 'span', props: { ...mark, 'data-checked': raw !== '' && raw !== '0' ? 'true' : 'false' } };
      case 'image': {
        const v = record(value);
        const id = num(v.id);
        const url = id ? lookups.assetUrl(id) : undefined;
        if (id && !url) warnings.push(`editable ${e.name}: asset ${id} is not imported; the image has no source`);
        return {
          type: 'img',
          props: { ...mark, src: url ?? '', alt: str(v.alt) ?? '', ...(id ? { 'data-pimcore-id': id } : {}) },
        };
      }
      case 'link': {
        const v = record(value);
        const href = linkHref(v, lookups) ?? '';
        const target = str(v.target);
        const title = str(v.title);
        return {
          type: 'a',
          props: { ...mark, href, ...(target ? { target } : {}), ...(title ? { title } : {}) },
          text: str(v.text) ?? href,
        };
      }
      case 'relation':
        return relationNode(record(value), mark, lookups);
      case 'relations': {
        const items = Array.isArray(value) ? value : [];
        return {
          type: 'div',
          props: mark,
          children: items.map((item) => relationNode(record(item), {}, lookups)),
        };
      }
      case 'snippet': {
        const id = num(raw);
        const snippetId = id ? lookups.snippetId(id) : undefined;
        if (id && !snippetId) warnings.push(`editable ${e.name}: snippet ${id} is not imported`);
        return {
          type: 'snippet',
          props: { ...mark, ...(snippetId ? { snippetId } : {}), ...(id ? { pimcoreId: id } : {}) },
        };
      }
      case 'areablock':
      case 'block': {
        if (depth >= MAX_DEPTH) {
          warnings.push(`editable ${e.name}: blocks nest deeper than ${MAX_DEPTH} levels; left out`);
          return null;
        }
        const items = Array.isArray(value) ? value : value && typeof value === 'object' ? Object.values(value) : [];
        const children: ImportedNode[] = [];
        for (const item of items) {
          const entry = e.type === 'areablock' ? record(item) : { key: item };
          if (e.type === 'areablock' && (entry.hidden === true || entry.hidden === 'true' || entry.hidden === 1))
            continue;
          const key = str(entry.key as PhpData);
          if (key === undefined || !/^\d+$/.test(key)) continue;
          const inner = childrenOf(`${e.name}:${key}.`)
            .map((c) => node(c, depth + 1))
            .filter((n): n is ImportedNode => n !== null);
          const brick = str(entry.type as PhpData);
          children.push(
            e.type === 'areablock'
              ? { type: 'section', props: { 'data-area': brick ?? '' }, children: inner }
              : { type: 'div', children: inner },
          );
        }
        return { type: 'div', props: mark, children };
      }
      default: {
        warnings.push(`editable ${e.name}: type ${e.type} is kept as data (data-value)`);
        let json = '';
        try {
          json = JSON.stringify(value) ?? '';
        } catch {
          json = '';
        }
        return {
          type: 'pimcore-editable',
          props: { ...mark, 'data-type': e.type, 'data-value': json.slice(0, 50_000) },
        };
      }
    }
  };

  const top = editables.filter((e) => !e.name.includes('.') && !e.name.includes(':'));
  return {
    type: 'div',
    children: top.map((e) => node(e, 0)).filter((n): n is ImportedNode => n !== null),
  };
}

/** Editable types whose column holds PHP's serialize() output. */
const SERIALIZED = new Set([
  'image',
  'link',
  'relation',
  'relations',
  'areablock',
  'block',
  'scheduledblock',
  'video',
  'table',
  'multiselect',
  'embed',
  'pdf',
  'renderlet',
]);

const isoDate = (ts: number) => {
  const d = new Date(ts * 1000);
  return Number.isNaN(d.getTime()) ? String(ts) : d.toISOString().slice(0, 10);
};

function linkHref(v: Record<string, PhpData>, lookups: TreeLookups): string | undefined {
  const internal = v.internal === true || v.internal === 1 || v.internal === '1';
  const id = typeof v.internalId === 'number' ? v.internalId : Number(v.internalId);
  if (internal && Number.isInteger(id)) {
    if (v.internalType === 'document') return lookups.documentPath(id);
    if (v.internalType === 'asset') return lookups.assetUrl(id);
  }
  return typeof v.path === 'string' ? v.path : undefined;
}

function relationNode(v: Record<string, PhpData>, mark: Record<string, string>, lookups: TreeLookups): ImportedNode {
  const id = Number(v.id);
  const type = typeof v.type === 'string' ? v.type : '';
  const href =
    Number.isInteger(id) && type === 'document'
      ? lookups.documentPath(id)
      : Number.isInteger(id) && type === 'asset'
        ? lookups.assetUrl(id)
        : undefined;
  return {
    type: 'relation',
    props: {
      ...mark,
      targetType: type,
      ...(Number.isInteger(id) ? { pimcoreId: id } : {}),
      ...(href ? { href } : {}),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// HTML (wysiwyg) as nodes: a small tolerant tokenizer. It builds a tree of every element it meets,
// script included; the content rules (the target's `cleanTree`) then leave out what a page may not
// hold. Nothing here decides what is safe.

const VOID = new Set(['img', 'br', 'hr', 'source', 'input', 'meta', 'link', 'wbr', 'col', 'area', 'base', 'embed']);
/** Elements whose content is raw text (no tags inside). */
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript']);
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
const MAX_HTML_NODES = 20_000;

export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const n = e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1));
      return Number.isInteger(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : m;
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

const ATTR = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

export function htmlToNodes(html: string): ImportedNode[] {
  const root: ImportedNode = { type: 'div', children: [] };
  const stack: ImportedNode[] = [root];
  let count = 0;
  const top = () => stack[stack.length - 1];
  const add = (n: ImportedNode) => {
    count++;
    if (count > MAX_HTML_NODES) return;
    const parent = top();
    if (!parent.children) parent.children = [];
    parent.children.push(n);
  };
  const text = (t: string) => {
    if (t === '') return;
    add({ type: 'text', text: decodeEntities(t) });
  };
  let pos = 0;
  while (pos < html.length) {
    const lt = html.indexOf('<', pos);
    if (lt < 0) {
      text(html.slice(pos));
      break;
    }
    text(html.slice(pos, lt));
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      pos = end < 0 ? html.length : end + 3;
      continue;
    }
    const m = /^<(\/?)([A-Za-z][A-Za-z0-9:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/.exec(html.slice(lt, lt + 20_000));
    if (!m) {
      if (/^<[!?]/.test(html.slice(lt, lt + 2))) {
        const end = html.indexOf('>', lt);
        pos = end < 0 ? html.length : end + 1;
        continue;
      }
      text('<');
      pos = lt + 1;
      continue;
    }
    pos = lt + m[0].length;
    const tag = m[2].toLowerCase();
    if (m[1]) {
      const at = stack.map((n) => n.type).lastIndexOf(tag);
      if (at > 0) stack.length = at;
      continue;
    }
    const props: Record<string, string> = {};
    for (const a of m[3].matchAll(ATTR)) {
      const name = a[1].toLowerCase();
      const value = decodeEntities(a[2] ?? a[3] ?? a[4] ?? '');
      props[name === 'class' ? 'className' : name] = value;
    }
    const el: ImportedNode = { type: tag, ...(Object.keys(props).length ? { props } : {}) };
    add(el);
    if (RAW_TEXT.has(tag)) {
      const close = html.toLowerCase().indexOf(`</${tag}`, pos);
      const body = html.slice(pos, close < 0 ? html.length : close);
      if (body) el.text = body;
      const end = close < 0 ? html.length : html.indexOf('>', close);
      pos = end < 0 ? html.length : end + 1;
      continue;
    }
    if (VOID.has(tag) || m[3].trimEnd().endsWith('/')) continue;
    el.children = [];
    if (stack.length < 60) stack.push(el);
  }
  return root.children ?? [];
}
