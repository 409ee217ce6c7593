import { MENU_MAX_DEPTH } from './menus.ts';
import type { ContentNode } from './node-tree.ts';
import { type ExpansionContext, markExpanded, nodePaths, replaceAt, type TreeExpander } from './tree-expansion.ts';

/** A website's menu entries in order, and the published variants of the pages they link to. */
export interface MenuSource {
  entries: Array<{ id: string; parent_id: string | null; label: string; path: string | null; page_id: string | null }>;
  /** Linked page id → its published, static variants (one per locale, the page itself among them). */
  variants: Map<string, Array<{ id: string; locale: string; path: string }>>;
}

/** What a link needs of the website: its root path and its locales (the first is the default). */
interface MenuWebsite {
  rootPath: string;
  locales: string[];
}

type Entry = MenuSource['entries'][number];

const MEMO_PER_TREE = 2_000;

/**
 * A page's address on the live site: `<root><path>` in the website's first locale, and
 * `/public/pages/<locale><root><path>` (the public route by locale) in any other.
 */
export function pageAddress(site: MenuWebsite, locale: string, path: string): string {
  const inSite = `${site.rootPath}${path === '/' ? '' : path}`;
  return locale === site.locales[0] ? inSite : `/public/pages/${locale}${inSite}`;
}

const text = (value: unknown, max: number): string | undefined =>
  typeof value === 'string' && value.trim() ? value.trim().slice(0, max) : undefined;

/**
 * The navigation a `menu` node stands for: `<nav aria-label><ul><li><a href>` in the entries'
 * order and nesting, down to `props.depth` levels (1-10, all by default). An entry links to the
 * published variant of its page in the locale shown (else the page it names, when published), or
 * to its own address; the link to the page shown carries `aria-current="page"`. An entry without a
 * usable link (no page, no address, or a page that is not published) shows as plain text while it
 * has entries shown below it, and is left out otherwise.
 */
export function menuNavigation(
  node: ContentNode,
  source: MenuSource | null,
  site: MenuWebsite | null,
  context: ExpansionContext,
): ContentNode {
  const props = node.props ?? {};
  const depth = Math.min(MENU_MAX_DEPTH, Math.max(1, Math.trunc(Number(props.depth)) || MENU_MAX_DEPTH));
  const className = ['cms-menu', text(props.className, 200)].filter(Boolean).join(' ');
  const nav: ContentNode = { type: 'nav', props: { 'aria-label': text(props.label, 200) ?? 'Menu', className } };
  if (!source || !site) return markExpanded(nav);
  const locale = context.locale ?? site.locales[0];
  const current = context.page ? pageAddress(site, locale, context.page.path) : null;
  const below = new Map<string | null, Entry[]>();
  for (const entry of source.entries) {
    const list = below.get(entry.parent_id) ?? [];
    list.push(entry);
    below.set(entry.parent_id, list);
  }
  const link = (entry: Entry): { href: string; current: boolean } | null => {
    const variants = entry.page_id ? source.variants.get(entry.page_id) : undefined;
    const page = variants?.find((v) => v.locale === locale) ?? variants?.find((v) => v.id === entry.page_id);
    if (page) return { href: pageAddress(site, page.locale, page.path), current: page.id === context.page?.id };
    if (entry.path) return { href: entry.path, current: entry.path === current };
    return null;
  };
  const seen = new Set<string>();
  // Entries nest at most MENU_MAX_DEPTH levels (menus.ts), so this recursion is bounded; `seen`
  // guards against a cycle a direct database edit could make.
  const list = (parent: string | null, level: number): ContentNode | null => {
    const items: ContentNode[] = [];
    for (const entry of below.get(parent) ?? []) {
      if (seen.has(entry.id)) continue;
      seen.add(entry.id);
      const target = link(entry);
      const sub = level < depth ? list(entry.id, level + 1) : null;
      if (!target && !sub) continue;
      const label: ContentNode = target
        ? { type: 'a', props: { href: target.href, 'aria-current': target.current ? 'page' : null }, text: entry.label }
        : { type: 'span', text: entry.label };
      items.push({ type: 'li', children: sub ? [label, sub] : [label] });
    }
    return items.length ? { type: 'ul', children: items } : null;
  };
  const top = list(null, 1);
  return markExpanded(top ? { ...nav, children: [top] } : nav);
}

/**
 * The `menu` node's expander: every `menu` node of a tree becomes the website's navigation
 * (`menuNavigation`). A tree without one is returned as it is, and nothing is read for it.
 */
export function menuExpander(deps: {
  menu(websiteId: string): Promise<MenuSource>;
  website(websiteId: string): Promise<MenuWebsite | undefined>;
}): TreeExpander {
  // The same tree (a layout region, kept by the layout cache) shown again with the same menu, in
  // the same place, expands to the same object: the renderer's memo (site-pages.ts) then draws it
  // once. Keyed by the menu source, which the menu cache replaces on every change.
  const memo = new WeakMap<MenuSource, WeakMap<ContentNode, Map<string, ContentNode>>>();
  return async (tree, context) => {
    const paths = nodePaths(tree, (node) => node.type === 'menu');
    if (paths.length === 0) return tree;
    const [source, site] = context.websiteId
      ? await Promise.all([deps.menu(context.websiteId), deps.website(context.websiteId)])
      : [null, undefined];
    const key = site
      ? `${site.rootPath}|${site.locales.join(',')}|${context.locale}|${context.page?.id}|${context.page?.path}`
      : '';
    const byTree = source && (memo.get(source) ?? memo.set(source, new WeakMap()).get(source)!);
    const known = byTree?.get(tree);
    const hit = known?.get(key);
    if (hit) return hit;
    let out = tree;
    for (const path of paths) {
      const node = path.reduce<ContentNode>((n, i) => n.children![i], out);
      out = replaceAt(out, path, menuNavigation(node, source, site ?? null, context));
    }
    if (byTree) {
      const entries = known ?? new Map<string, ContentNode>();
      // One entry per page the tree is shown on; a site of many pages starts over past the cap.
      if (entries.size >= MEMO_PER_TREE) entries.clear();
      entries.set(key, out);
      byTree.set(tree, entries);
    }
    return out;
  };
}
