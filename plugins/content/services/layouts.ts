import { badRequest, inTransaction, notFound } from '../../../kernel/index.ts';
import type { LayoutRow, LayoutStore, LayoutWrite } from '../store/layouts.ts';
import type { ContentDeps } from './deps.ts';
import { validateNodeTree } from './node-tree.ts';
import { checkIfMatch } from './preconditions.ts';

export const REGIONS = ['header', 'aside', 'main', 'footer', 'notFound'] as const;

export interface LayoutInput {
  name?: string;
  regions?: Record<string, unknown>;
  slots?: Record<string, { className?: string; style?: string }>;
  pathPatterns?: string[];
  locale?: string | null;
  isDefault?: boolean;
}

export const toLayoutDto = (r: LayoutRow) => ({
  id: r.id,
  websiteId: r.website_id,
  name: r.name,
  regions: r.regions,
  slots: r.slots,
  pathPatterns: r.path_patterns,
  locale: r.locale,
  isDefault: r.is_default,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** `/blog/*` matches everything below `/blog`, `*` every path, anything else itself. */
export function patternMatches(pattern: string, path: string): boolean {
  if (pattern === '*' || pattern === '/*') return true;
  if (pattern.endsWith('/*')) {
    const prefix = pattern.slice(0, -2);
    return path === prefix || path.startsWith(`${prefix}/`);
  }
  return pattern === path;
}

/** The layout a page gets: the most specific matching pattern for its locale, else the default. */
export function pickLayout(layouts: LayoutRow[], page: { locale: string; path: string }): LayoutRow | undefined {
  const candidates = layouts.filter((l) => l.locale === null || l.locale === page.locale);
  let best: { layout: LayoutRow; score: number } | undefined;
  for (const layout of candidates) {
    for (const pattern of layout.path_patterns) {
      if (patternMatches(pattern, page.path) && (!best || pattern.length > best.score))
        best = { layout, score: pattern.length };
    }
  }
  return (
    best?.layout ??
    candidates.find((l) => l.is_default && l.locale === page.locale) ??
    candidates.find((l) => l.is_default)
  );
}

/** The layout holding the website's 404 content: the default one with a `notFound` region, else the first. */
export function notFoundLayout(layouts: LayoutRow[]): LayoutRow | undefined {
  const withRegion = layouts.filter((l) => l.regions.notFound);
  return withRegion.find((l) => l.is_default) ?? withRegion[0];
}

/** Website layout templates: regions, slots, path patterns, locale and one default per website. */
export class LayoutService {
  constructor(
    private readonly deps: {
      kernel: ContentDeps;
      store: LayoutStore;
      /** After a write: the website whose layouts changed (cached for its public pages). */
      onChange?(websiteId: string): void;
    },
  ) {}

  private changed(websiteId: string): void {
    this.deps.onChange?.(websiteId);
  }

  private shape(input: LayoutInput): LayoutWrite {
    const w: LayoutWrite = {};
    if (input.name !== undefined) w.name = input.name;
    if (input.regions !== undefined) {
      const regions: LayoutWrite['regions'] = {};
      for (const [name, tree] of Object.entries(input.regions)) {
        if (!(REGIONS as readonly string[]).includes(name))
          throw badRequest(
            `Unknown region "${name.slice(0, 64)}" (header, aside, main, footer, notFound)`,
            `regions.${name}`,
          );
        regions[name as (typeof REGIONS)[number]] =
          tree === null
            ? null
            : validateNodeTree(tree, `regions.${name}`, this.deps.kernel.pluginConfig.CONTENT_MAX_TREE_BYTES);
      }
      w.regions = regions;
    }
    if (input.slots !== undefined) {
      for (const [name, slot] of Object.entries(input.slots)) {
        if (/expression\(|javascript:|behavior:/i.test(slot.style ?? ''))
          throw badRequest('Script in styles is not allowed', `slots.${name}.style`);
      }
      w.slots = input.slots;
    }
    if (input.pathPatterns !== undefined) w.path_patterns = input.pathPatterns;
    if (input.locale !== undefined) w.locale = input.locale;
    if (input.isDefault !== undefined) w.is_default = input.isDefault;
    return w;
  }

  private async website(websiteId: string): Promise<void> {
    if (!(await this.deps.store.websiteExists(websiteId))) throw notFound('Website not found');
  }

  async list(websiteId: string) {
    await this.website(websiteId);
    return this.deps.store.list(websiteId);
  }

  async get(websiteId: string, id: string) {
    const row = await this.deps.store.find(websiteId, id);
    if (!row) throw notFound('Layout template not found');
    return row;
  }

  async create(websiteId: string, input: LayoutInput & { name: string }) {
    const w = this.shape(input);
    await this.website(websiteId);
    return inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const row = await this.deps.store.insert(websiteId, w, trx);
      if (row.is_default) await this.deps.store.clearDefault(websiteId, row.id, trx);
      return row;
    }).finally(() => this.changed(websiteId));
  }

  /** `ifMatch`: the tag the caller's state is based on (412 `EDIT_CONFLICT` when the layout changed since). */
  async update(websiteId: string, id: string, input: LayoutInput, opts: { ifMatch?: string } = {}) {
    const w = this.shape(input);
    return inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const before = await this.deps.store.findForUpdate(websiteId, id, trx);
      if (!before) throw notFound('Layout template not found');
      checkIfMatch(opts.ifMatch, before.updated_at, 'layout template');
      const row = (await this.deps.store.update(websiteId, id, w, trx))!;
      if (row.is_default) await this.deps.store.clearDefault(websiteId, row.id, trx);
      return row;
    }).finally(() => this.changed(websiteId));
  }

  async remove(websiteId: string, id: string) {
    await inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      if (!(await this.deps.store.remove(websiteId, id, trx))) throw notFound('Layout template not found');
    }).finally(() => this.changed(websiteId));
  }

  /** The layout a page gets (`pickLayout`). */
  async forPage(page: { website_id: string; locale: string; path: string }): Promise<LayoutRow | undefined> {
    return pickLayout(await this.deps.store.list(page.website_id), page);
  }

  /** The website's 404 content: the default layout's notFound region. */
  async notFoundContent(websiteId: string) {
    return notFoundLayout(await this.deps.store.list(websiteId))?.regions.notFound ?? undefined;
  }
}
