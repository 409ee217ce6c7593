import { randomUUID } from 'node:crypto';
import {
  badRequest,
  conflict,
  forbidden,
  inTransaction,
  isUniqueViolation,
  notFound,
  type Actor,
  type AuditContext,
  type Db,
  type Tx,
} from '../../../kernel/index.ts';
import { announcePage, type PageChangeKind } from '../events.ts';
import type { BindingStore } from '../store/bindings.ts';
import type { DraftRow, DraftStore } from '../store/drafts.ts';
import type { PageRow, PageStore, PageWrite } from '../store/pages.ts';
import type { VersionStore } from '../store/versions.ts';
import type { ContentDeps } from './deps.ts';
import { validateNodeTree, type ContentNode } from './node-tree.ts';
import { checkDataBindings } from './data-bindings.ts';
import { checkFormBlocks } from './form-node.ts';
import { PAGE_COPY, pageInputOf, splitPageInput, type StaffPageRow } from './page-drafts.ts';
import { WorkingCopies, mayPublish, withDraft } from './working-copy.ts';
import { bindContent } from './page-bindings.ts';
import { parsePagePath } from './path-pattern.ts';
import type { SiteDirectory } from './site-directory.ts';
import { checkIfMatch } from './preconditions.ts';
import { checkThumbnail } from './thumbnail.ts';
import { diffTrees } from './tree-diff.ts';

export const VERSIONS_KEPT = 10;

export interface Seo {
  title?: string;
  description?: string;
  canonical?: string;
  openGraph?: Record<string, string>;
}

export interface PageInput {
  websiteId?: string;
  locale?: string;
  translationGroupId?: string;
  path?: string;
  dataClass?: string | null;
  title?: string;
  content?: unknown;
  seo?: Seo;
  inSitemap?: boolean;
  indexable?: boolean;
  published?: boolean;
  kind?: string | null;
}

export function toPageDto(row: StaffPageRow) {
  return {
    id: row.id,
    websiteId: row.website_id,
    locale: row.locale,
    translationGroupId: row.translation_group_id,
    path: row.path,
    dynamic: row.dynamic,
    dataClass: row.data_class,
    title: row.title,
    ...(row.content !== undefined ? { content: row.content } : {}),
    seo: row.seo,
    inSitemap: row.in_sitemap,
    indexable: row.indexable,
    published: row.published,
    publishedAt: row.published_at,
    kind: row.kind,
    ...(row.thumbnail !== undefined ? { thumbnail: row.thumbnail } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.draft ? { draft: row.draft } : {}),
  };
}

const EMPTY_TREE: ContentNode = { type: 'div', children: [] };

/** Pages: node trees, version history, publication (objects:publish while enforced), gateway bindings. */
export class PageService {
  /** The pages' working copies (working-copy.ts). */
  readonly copies: WorkingCopies<PageRow>;

  constructor(
    private readonly deps: {
      kernel: ContentDeps;
      pages: PageStore;
      versions: VersionStore;
      bindings: BindingStore;
      drafts: DraftStore;
      directory: SiteDirectory;
      onChange: () => void;
    },
  ) {
    this.copies = new WorkingCopies(deps, PAGE_COPY);
  }

  private mayPublish(actor: Actor): boolean {
    return mayPublish(this.deps.kernel, actor);
  }

  async get(id: string, trx?: Tx): Promise<PageRow> {
    const row = await this.deps.pages.find(id, trx);
    if (!row) throw notFound('Page not found');
    return row;
  }

  list(filter: { websiteId?: string; limit: number; offset: number }) {
    return this.deps.pages.list(filter);
  }

  /** The website exists and has the locale (400 naming `websiteId` or `locale` otherwise). */
  async checkTarget(websiteId: string, locale: string, trx?: Tx): Promise<void> {
    await this.checkWebsite(websiteId, locale, trx ?? this.deps.kernel.db);
  }

  /** The checks a page save runs on `content` (shape, size, script, data bindings, form blocks). */
  async checkContent(content: unknown): Promise<void> {
    const tree = validateNodeTree(content, 'content', this.deps.kernel.pluginConfig.CONTENT_MAX_TREE_BYTES);
    await checkDataBindings(this.deps.kernel.dataObjects, tree);
    await checkFormBlocks(this.deps.kernel.dataObjects, tree);
  }

  private async checkWebsite(websiteId: string, locale: string, trx: Tx | Db): Promise<void> {
    const site = await this.deps.pages.websiteLocales(websiteId, trx);
    if (!site) throw badRequest('Website not found', 'websiteId');
    if (!(site.locales as string[]).includes(locale))
      throw badRequest(`Locale ${locale} is not one of the website's locales`, 'locale');
  }

  private shape(input: PageInput, current: Partial<PageRow>): PageWrite {
    const w: PageWrite = {};
    const path = input.path ?? current.path;
    if (input.path !== undefined || input.dataClass !== undefined) {
      const { dynamic } = parsePagePath(path!);
      const dataClass = input.dataClass !== undefined ? input.dataClass : (current.data_class ?? null);
      if (dynamic && !dataClass) throw badRequest('A dynamic path needs a data class', 'dataClass');
      w.dynamic = dynamic;
      w.data_class = dynamic ? dataClass : null;
      if (input.path !== undefined) w.path = input.path;
    }
    if (input.title !== undefined) w.title = input.title;
    if (input.content !== undefined)
      w.content = validateNodeTree(input.content, 'content', this.deps.kernel.pluginConfig.CONTENT_MAX_TREE_BYTES);
    if (input.seo !== undefined) w.seo = input.seo as Record<string, unknown>;
    if (input.inSitemap !== undefined) w.in_sitemap = input.inSitemap;
    if (input.indexable !== undefined) w.indexable = input.indexable;
    if (input.kind !== undefined) w.kind = input.kind;
    return w;
  }

  private async writing<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (isUniqueViolation(err))
        throw conflict('Another page of this website and locale has this path', 'UNIQUE_VIOLATION', 'path');
      throw err;
    }
  }

  private done(trx: Tx): void {
    this.deps.onChange();
    trx.executionPromise?.then(this.deps.onChange, this.deps.onChange);
  }

  async create(
    actor: Actor,
    input: PageInput & { websiteId: string; locale: string; path: string; title: string },
    opts: { trx?: Tx } = {},
  ): Promise<PageRow> {
    if (input.published && !this.mayPublish(actor))
      throw forbidden('Publishing needs objects:publish', 'PUBLISH_FORBIDDEN');
    const w = this.shape({ content: EMPTY_TREE, ...input }, {});
    await checkDataBindings(this.deps.kernel.dataObjects, w.content!);
    await checkFormBlocks(this.deps.kernel.dataObjects, w.content!);
    return this.writing(() =>
      inTransaction(this.deps.kernel.db, opts.trx, async (trx) => {
        await this.checkWebsite(input.websiteId, input.locale, trx);
        if (
          input.translationGroupId &&
          (await this.deps.pages.groupHasLocale(input.translationGroupId, input.locale, trx))
        ) {
          throw conflict(
            'The translation group already has a page in this locale',
            'UNIQUE_VIOLATION',
            'translationGroupId',
          );
        }
        const id = randomUUID();
        const bindings = await bindContent(this.deps, { id, websiteId: input.websiteId, isNew: true }, w.content!, trx);
        const row = await this.deps.pages.insert(
          {
            ...w,
            id,
            website_id: input.websiteId,
            locale: input.locale,
            translation_group_id: input.translationGroupId ?? randomUUID(),
            published: input.published === true,
            published_at: input.published ? this.deps.kernel.clock.now() : null,
          },
          trx,
        );
        await this.deps.bindings.replaceForPage(id, bindings, trx);
        await announcePage(this.deps.kernel.recordHooks, trx, 'created', row, actor);
        if (row.published) await announcePage(this.deps.kernel.recordHooks, trx, 'published', row, actor);
        this.done(trx);
        return row;
      }),
    );
  }

  /**
   * Saves a page. A published page (or one with a working copy) saved by someone without
   * objects:publish, or with `draft: true`, keeps its live row: title, content, path, SEO and
   * sitemap settings go to its working copy (page-drafts.ts); publishing, the locale and the
   * thumbnail stay live changes. A publisher's save without `draft` goes live as before and is
   * carried into the working copy when there is one. `ifMatch` is checked against what staff reads
   * show (the working copy's time when there is one).
   */
  async update(
    actor: Actor,
    id: string,
    input: PageInput & { thumbnail?: string | null },
    opts: { trx?: Tx; snapshot?: boolean; ifMatch?: string; draft?: boolean } = {},
  ): Promise<StaffPageRow> {
    return this.writing(() =>
      inTransaction(this.deps.kernel.db, opts.trx, async (trx) => {
        const before = await this.deps.pages.findForUpdate(id, trx);
        if (!before) throw notFound('Page not found');
        const draft = await this.copies.find(id, trx, 'update');
        checkIfMatch(opts.ifMatch, (draft ?? before).updated_at, 'page');
        const { live: liveInput, draft: draftInput } = splitPageInput(input);
        if (this.copies.toCopy(actor, { live: before.published, hasCopy: draft !== null, draft: opts.draft })) {
          const row =
            Object.keys(liveInput).length > 0 ? await this.updateLive(trx, actor, before, liveInput, opts) : before;
          return withDraft(row, await this.saveWorkingCopy(trx, actor, row, draft, draftInput));
        }
        const row = await this.updateLive(trx, actor, before, input, opts);
        const carried = draft && (await this.saveWorkingCopy(trx, actor, row, draft, draftInput));
        return withDraft(row, carried);
      }),
    );
  }

  /** Changes the live row (the caller holds its lock): versions, bindings, announcements. */
  private async updateLive(
    trx: Tx,
    actor: Actor,
    before: PageRow,
    input: PageInput & { thumbnail?: string | null },
    opts: { snapshot?: boolean; publishAuthorized?: boolean },
  ): Promise<PageRow> {
    const id = before.id;
    if (
      input.published !== undefined &&
      input.published !== before.published &&
      !opts.publishAuthorized &&
      !this.mayPublish(actor)
    ) {
      throw forbidden(`${input.published ? 'Publishing' : 'Unpublishing'} needs objects:publish`, 'PUBLISH_FORBIDDEN');
    }
    if (input.websiteId !== undefined && input.websiteId !== before.website_id)
      throw badRequest('A page cannot move to another website', 'websiteId');
    const w = this.shape(input, before);
    if (w.content) {
      await checkDataBindings(this.deps.kernel.dataObjects, w.content);
      await checkFormBlocks(this.deps.kernel.dataObjects, w.content);
    }
    if (input.locale !== undefined && input.locale !== before.locale) {
      await this.checkWebsite(before.website_id, input.locale, trx);
      if (await this.deps.pages.groupHasLocale(before.translation_group_id, input.locale, trx)) {
        throw conflict('The translation group already has a page in this locale', 'UNIQUE_VIOLATION', 'locale');
      }
      w.locale = input.locale;
    }
    if (input.thumbnail !== undefined) w.thumbnail = checkThumbnail(input.thumbnail);
    if (w.content) {
      const bindings = await bindContent(this.deps, { id, websiteId: before.website_id, isNew: false }, w.content, trx);
      await this.deps.bindings.replaceForPage(id, bindings, trx);
    }
    const contentChanged = w.content !== undefined && JSON.stringify(w.content) !== JSON.stringify(before.content);
    if (contentChanged && opts.snapshot !== false) {
      await this.deps.versions.snapshot(
        {
          owner_type: 'page',
          owner_id: id,
          title: before.title,
          content: before.content,
          created_by: actor.type === 'user' ? actor.id : null,
        },
        VERSIONS_KEPT,
        trx,
      );
    }
    if (input.published !== undefined && input.published !== before.published) {
      w.published = input.published;
      w.published_at = input.published ? this.deps.kernel.clock.now() : before.published_at;
    }
    const row = await this.deps.pages.update(id, w, trx);
    const changed = Object.keys(w).filter(
      (k) =>
        k !== 'published' &&
        k !== 'published_at' &&
        JSON.stringify((w as Record<string, unknown>)[k]) !==
          JSON.stringify((before as unknown as Record<string, unknown>)[k]),
    );
    const hooks = this.deps.kernel.recordHooks;
    if (changed.length) await announcePage(hooks, trx, 'updated', row, actor, changed);
    if (row.published !== before.published)
      await announcePage(hooks, trx, row.published ? 'published' : 'unpublished', row, actor);
    this.done(trx);
    return row;
  }

  /**
   * Applies a save's draft fields to the working copy of `live` (made from the live row when there is
   * none); validated as a live save is. A copy equal to live is removed; nothing changed stores nothing.
   * Nothing is announced and no binding changes: the site does not see a working copy.
   */
  private async saveWorkingCopy(
    trx: Tx,
    actor: Actor,
    live: PageRow,
    draft: DraftRow | null,
    input: PageInput,
  ): Promise<DraftRow | null> {
    const current = this.copies.current(live, draft) as Partial<PageRow>;
    const w = this.shape(input, current);
    if (w.content) {
      await checkDataBindings(this.deps.kernel.dataObjects, w.content);
      await checkFormBlocks(this.deps.kernel.dataObjects, w.content);
    }
    return this.copies.store(trx, actor, live, draft, { ...current, ...w });
  }

  /** GET /cms-one/pages/:id for staff: the working copy unless `version` is `live`. */
  async staffView(id: string, version: 'live' | 'draft' = 'draft'): Promise<StaffPageRow> {
    return this.copies.view(await this.get(id), version);
  }

  /** The fields in which the working copy differs from live; the content as node-tree paths. */
  async draftDiff(id: string) {
    const row = await this.get(id);
    return this.copies.diff(row, await this.copies.find(id));
  }

  /**
   * POST /cms-one/pages/:id/publish-draft: the working copy becomes the live page (a save: version
   * snapshot, bindings, announcements), audited as `page.publish_draft`.
   */
  async publishDraft(ctx: AuditContext, id: string, opts: { trx?: Tx } = {}): Promise<PageRow> {
    this.copies.checkPublisher(ctx.actor);
    return this.writing(() =>
      inTransaction(this.deps.kernel.db, opts.trx, async (trx) => {
        const before = await this.deps.pages.findForUpdate(id, trx);
        if (!before) throw notFound('Page not found');
        const draft = await this.copies.find(id, trx, 'update');
        if (!draft) throw this.copies.missing();
        return this.promote(trx, ctx, before, draft);
      }),
    );
  }

  /** Makes `draft` live on `before` (locked by the caller) and removes it. */
  async promote(trx: Tx, ctx: AuditContext, before: PageRow, draft: DraftRow): Promise<PageRow> {
    return this.copies.promote(
      trx,
      ctx,
      before,
      draft,
      (fields) => this.updateLive(trx, ctx.actor, before, pageInputOf(fields), {}),
      (row) => row.title,
    );
  }

  /**
   * Carries out a scheduled publish (promoting the working copy, if any) or unpublish of a page, as
   * `ctx.actor`, the publisher who set it (their right was checked then). False when the page is gone.
   */
  async applySchedule(trx: Tx, ctx: AuditContext, id: string, action: 'publish' | 'unpublish'): Promise<boolean> {
    const before = await this.deps.pages.findForUpdate(id, trx);
    if (!before) return false;
    let row: PageRow = before;
    const draft = action === 'publish' ? await this.copies.find(id, trx, 'update') : null;
    if (draft) row = await this.promote(trx, ctx, before, draft);
    const published = action === 'publish';
    if (row.published !== published)
      row = await this.updateLive(trx, ctx.actor, row, { published }, { publishAuthorized: true });
    await this.deps.kernel.audit.record(
      ctx,
      {
        action: `page.scheduled_${action}`,
        targetType: 'page',
        targetId: id,
        targetLabel: row.title,
        after: { published, promotedDraft: draft !== null },
      },
      trx,
    );
    return true;
  }

  /** True when the actor may publish (or ENFORCE_PUBLISH_PERMISSION is off). */
  mayPublishAs(actor: Actor): boolean {
    return this.mayPublish(actor);
  }

  /** DELETE /cms-one/pages/:id/draft: the live page stays; audited as `page.discard_draft`. */
  async discardDraft(ctx: AuditContext, id: string): Promise<void> {
    await inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const before = await this.deps.pages.findForUpdate(id, trx);
      if (!before) throw notFound('Page not found');
      await this.copies.discard(trx, ctx, before, before.title);
    });
  }

  async remove(actor: Actor, id: string): Promise<void> {
    await inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const before = await this.deps.pages.findForUpdate(id, trx);
      if (!before) throw notFound('Page not found');
      await this.deps.pages.remove(id, trx);
      await this.deps.versions.removeOwner('page', id, trx);
      const kinds: PageChangeKind[] = before.published ? ['unpublished', 'deleted'] : ['deleted'];
      for (const kind of kinds) await announcePage(this.deps.kernel.recordHooks, trx, kind, before, actor);
      this.done(trx);
    });
  }

  versions(id: string) {
    return this.deps.versions.list('page', id);
  }

  async version(id: string, versionId: string) {
    const v = await this.deps.versions.find('page', id, versionId);
    if (!v) throw notFound('Version not found');
    return v;
  }

  /** Restoring is a save of the version's content: the current state becomes a version itself. */
  async restore(actor: Actor, id: string, versionId: string, opts: { ifMatch?: string } = {}): Promise<PageRow> {
    const v = await this.version(id, versionId);
    return this.update(actor, id, { content: v.content, ...(v.title ? { title: v.title } : {}) }, opts);
  }

  async diff(id: string, versionId: string) {
    const [page, v] = await Promise.all([this.get(id), this.version(id, versionId)]);
    return { versionId, ...diffTrees(v.content, page.content), titleChanged: v.title !== page.title };
  }

  async translations(id: string) {
    const page = await this.get(id);
    return this.deps.pages.translations(page.translation_group_id);
  }
}
