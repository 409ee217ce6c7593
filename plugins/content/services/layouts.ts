import { badRequest, inTransaction, notFound, type Actor, type AuditContext, type Tx } from '../../../kernel/index.ts';
import type { DraftStore } from '../store/drafts.ts';
import type { LayoutRow, LayoutStore, LayoutWrite } from '../store/layouts.ts';
import type { ContentDeps } from './deps.ts';
import { type ContentNode, validateNodeTree } from './node-tree.ts';
import { checkIfMatch } from './preconditions.ts';
import { type StaffRow, type WorkingCopyKind, WorkingCopies, withDraft } from './working-copy.ts';

export const REGIONS = ['header', 'aside', 'main', 'footer', 'notFound'] as const;

export interface LayoutInput {
  name?: string;
  regions?: Record<string, unknown>;
  slots?: Record<string, { className?: string; style?: string }>;
  pathPatterns?: string[];
  locale?: string | null;
  isDefault?: boolean;
}

/**
 * A layout's working copy holds all its fields; the site draws every page with the live layouts until
 * the copy is published. Its regions' node paths are named `regions.<region>.<path>` in a diff.
 */
const LAYOUT_COPY: WorkingCopyKind = {
  owner: 'layout',
  label: 'layout template',
  columns: {
    name: 'name',
    regions: 'regions',
    slots: 'slots',
    path_patterns: 'pathPatterns',
    locale: 'locale',
    is_default: 'isDefault',
  },
  treeFields: ['regions'],
  trees: (fields) => {
    const out: Record<string, ContentNode> = {};
    for (const [name, tree] of Object.entries((fields.regions ?? {}) as Record<string, ContentNode | null>))
      if (tree) out[`regions.${name}`] = tree;
    return out;
  },
};

export const toLayoutDto = (r: StaffRow<LayoutRow>) => ({
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
  ...(r.draft ? { draft: r.draft } : {}),
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
  /** The layouts' working copies (working-copy.ts). */
  readonly copies: WorkingCopies<LayoutRow>;

  constructor(
    private readonly deps: {
      kernel: ContentDeps;
      store: LayoutStore;
      drafts: DraftStore;
      /** After a write: the website whose layouts changed (cached for its public pages). */
      onChange?(websiteId: string): void;
    },
  ) {
    this.copies = new WorkingCopies(deps, LAYOUT_COPY);
  }

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

  /**
   * A website's layouts as staff see them: each with its working copy, if any. The editor's canvas
   * draws pages in these (a preview shows the working copy); the site keeps the live ones.
   */
  async staffLayouts(websiteId: string): Promise<LayoutRow[]> {
    return Promise.all((await this.deps.store.list(websiteId)).map((row) => this.copies.view(row)));
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

  /**
   * Saves a layout. By someone without objects:publish, or with `draft: true`, the change goes to its
   * working copy (working-copy.ts) and the site keeps the live layout; a publisher's save goes live
   * and is carried into the copy when there is one. `ifMatch`: the tag the caller's state is based on
   * (412 `EDIT_CONFLICT` when what staff reads show, the copy when there is one, changed since).
   */
  async update(
    actor: Actor,
    websiteId: string,
    id: string,
    input: LayoutInput,
    opts: { ifMatch?: string; draft?: boolean } = {},
  ): Promise<StaffRow<LayoutRow>> {
    const w = this.shape(input);
    return inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const before = await this.deps.store.findForUpdate(websiteId, id, trx);
      if (!before) throw notFound('Layout template not found');
      const draft = await this.copies.find(id, trx, 'update');
      checkIfMatch(opts.ifMatch, (draft ?? before).updated_at, 'layout template');
      if (this.copies.toCopy(actor, { live: true, hasCopy: draft !== null, draft: opts.draft })) {
        const next = { ...this.copies.current(before, draft), ...w };
        return withDraft(before, await this.copies.store(trx, actor, before, draft, next));
      }
      const row = await this.updateLive(trx, before, w);
      if (!draft) return row;
      return withDraft(row, await this.copies.store(trx, actor, row, draft, { ...draft.fields, ...w }));
    }).finally(() => this.changed(websiteId));
  }

  private async updateLive(trx: Tx, before: LayoutRow, w: LayoutWrite): Promise<LayoutRow> {
    const row = (await this.deps.store.update(before.website_id, before.id, w, trx))!;
    if (row.is_default) await this.deps.store.clearDefault(before.website_id, row.id, trx);
    return row;
  }

  /** GET …/templates/:id for staff: the working copy unless `version` is `live`. */
  async staffView(websiteId: string, id: string, version: 'live' | 'draft' = 'draft') {
    return this.copies.view(await this.get(websiteId, id), version);
  }

  async draftDiff(websiteId: string, id: string) {
    return this.copies.diff(await this.get(websiteId, id), await this.copies.find(id));
  }

  /** POST …/templates/:id/publish-draft (objects:publish): the copy becomes the layout pages are drawn with. */
  async publishDraft(ctx: AuditContext, websiteId: string, id: string): Promise<LayoutRow> {
    this.copies.checkPublisher(ctx.actor);
    return inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const before = await this.deps.store.findForUpdate(websiteId, id, trx);
      if (!before) throw notFound('Layout template not found');
      const draft = await this.copies.find(id, trx, 'update');
      if (!draft) throw this.copies.missing();
      return this.copies.promote(
        trx,
        ctx,
        before,
        draft,
        (fields) => this.updateLive(trx, before, fields as LayoutWrite),
        (row) => row.name,
      );
    }).finally(() => this.changed(websiteId));
  }

  async discardDraft(ctx: AuditContext, websiteId: string, id: string): Promise<void> {
    await inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const before = await this.deps.store.findForUpdate(websiteId, id, trx);
      if (!before) throw notFound('Layout template not found');
      await this.copies.discard(trx, ctx, before, before.name);
    });
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
