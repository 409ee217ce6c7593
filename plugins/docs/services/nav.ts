import { isAlias, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import type { DocsWarning, NavItem } from './model.ts';

/** Deepest nesting of a nav file. */
const MAX_NAV_DEPTH = 8;
/** Most entries of a nav file. */
const MAX_NAV_ITEMS = 5_000;

export interface NavCheck {
  ok: boolean;
  errors: Array<{ line: number; message: string }>;
  warnings: DocsWarning[];
  nav: NavItem[];
}

/** Normalises a nav path: no slashes at the ends, `index` for the home (`/` or ''). */
export const navPath = (p: string) =>
  p
    .trim()
    .replace(/^\/+|\/+$/g, '')
    .replace(/\.md$/i, '')
    .replace(/(^|\/)index$/, '');

/**
 * Reads a nav file (YAML): a list whose entries are a document path (`guide/intro`, `/` for the
 * home), or `{ title?, path?, children? }`. Aliases are refused (no cycles, no alias bombs); so are
 * other shapes, more than 8 levels or 5,000 entries, each an error with its line. A path that names
 * no document is a NAV_UNKNOWN_PATH warning and is left out. `titleOf` gives a document's title,
 * undefined when there is none at that path.
 */
export function checkNav(text: string, file: string, titleOf: (path: string) => string | undefined): NavCheck {
  const lines = new LineCounter();
  const errors: NavCheck['errors'] = [];
  const warnings: DocsWarning[] = [];
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  const lineOf = (node: { range?: [number, number, number] | null } | null | undefined) =>
    node?.range ? lines.linePos(node.range[0]).line : 1;
  for (const e of doc.errors) errors.push({ line: e.linePos?.[0]?.line ?? 1, message: e.message.split('\n')[0] });
  if (errors.length) return { ok: false, errors, warnings, nav: [] };
  let count = 0;
  const walk = (node: unknown, depth: number): NavItem[] => {
    if (node === null || node === undefined) return [];
    if (isAlias(node)) {
      errors.push({ line: lineOf(node), message: 'Aliases (*name) are not allowed in a nav file' });
      return [];
    }
    if (!isSeq(node)) {
      errors.push({ line: lineOf(node as Node), message: 'Expected a list of entries' });
      return [];
    }
    if (depth > MAX_NAV_DEPTH) {
      errors.push({ line: lineOf(node), message: `The nav nests deeper than ${MAX_NAV_DEPTH} levels` });
      return [];
    }
    const out: NavItem[] = [];
    for (const item of node.items) {
      if (++count > MAX_NAV_ITEMS) {
        errors.push({ line: lineOf(item as Node), message: `The nav has more than ${MAX_NAV_ITEMS} entries` });
        return out;
      }
      const line = lineOf(item as Node);
      if (isAlias(item)) {
        errors.push({ line, message: 'Aliases (*name) are not allowed in a nav file' });
        continue;
      }
      if (isScalar(item) && typeof item.value === 'string') {
        const path = navPath(item.value);
        const title = titleOf(path);
        if (title === undefined) {
          warnings.push({
            code: 'NAV_UNKNOWN_PATH',
            path: file,
            line,
            target: item.value,
            message: `No document at ${item.value}`,
          });
          continue;
        }
        out.push({ title, path });
        continue;
      }
      if (!isMap(item)) {
        errors.push({ line, message: 'An entry is a document path or a mapping with title, path and children' });
        continue;
      }
      const entry: { title?: string; path?: string; children?: NavItem[] } = {};
      let bad = false;
      for (const pair of item.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : '';
        const value = pair.value;
        if (isAlias(value)) {
          errors.push({ line: lineOf(value), message: 'Aliases (*name) are not allowed in a nav file' });
          bad = true;
        } else if (key === 'title' && isScalar(value) && typeof value.value === 'string' && value.value.length <= 300)
          entry.title = value.value;
        else if (key === 'path' && isScalar(value) && typeof value.value === 'string' && value.value.length <= 1024)
          entry.path = value.value;
        else if (key === 'children') entry.children = walk(value, depth + 1);
        else {
          errors.push({
            line: lineOf(pair.key as Node) || line,
            message: `Unknown or malformed field "${key.slice(0, 40)}"`,
          });
          bad = true;
        }
      }
      if (bad) continue;
      let path: string | undefined;
      let title = entry.title;
      if (entry.path !== undefined) {
        path = navPath(entry.path);
        const known = titleOf(path);
        if (known === undefined) {
          warnings.push({
            code: 'NAV_UNKNOWN_PATH',
            path: file,
            line,
            target: entry.path,
            message: `No document at ${entry.path}`,
          });
          path = undefined;
        } else title ??= known;
      }
      if (title === undefined && path === undefined && !entry.children?.length) {
        if (entry.path === undefined) errors.push({ line, message: 'An entry needs a title, a path or children' });
        continue;
      }
      out.push({
        title: title ?? 'Untitled',
        ...(path !== undefined ? { path } : {}),
        ...(entry.children?.length ? { children: entry.children } : {}),
      });
    }
    return out;
  };
  const nav = walk(doc.contents, 1);
  return { ok: errors.length === 0, errors, warnings, nav: errors.length ? [] : nav };
}

/** The nav with only the entries `keep` accepts; a group left with nothing is dropped. */
export function filterNav(
  nav: readonly NavItem[],
  keep: (path: string) => boolean,
  groupTitle: (item: NavItem) => string,
): NavItem[] {
  const out: NavItem[] = [];
  for (const item of nav) {
    const children = item.children ? filterNav(item.children, keep, groupTitle) : undefined;
    const ownPath = item.path !== undefined && keep(item.path);
    if (!ownPath && !children?.length) continue;
    out.push({
      title: ownPath ? item.title : groupTitle(item),
      ...(ownPath ? { path: item.path } : {}),
      ...(children?.length ? { children } : {}),
    });
  }
  return out;
}

/** Document paths of a nav in reading order, each once. */
export function navOrder(nav: readonly NavItem[], into: string[] = [], seen = new Set<string>()): string[] {
  for (const item of nav) {
    if (item.path !== undefined && !seen.has(item.path)) {
      seen.add(item.path);
      into.push(item.path);
    }
    if (item.children) navOrder(item.children, into, seen);
  }
  return into;
}
