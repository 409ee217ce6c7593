import {
  badRequest,
  diffForAudit,
  inTransaction,
  notFound,
  type AuditContext,
  type Tx,
} from '../../../kernel/index.ts';
import type { WebsitePathStore } from '../store/website-paths.ts';
import type { ContentDeps } from './deps.ts';

export interface WebsitePathRow {
  id: string;
  website_id: string;
  parent_id: string | null;
  label: string;
  path: string | null;
  page_id: string | null;
  position: number;
  created_at: Date;
  updated_at: Date;
}

export interface WebsitePathInput {
  websiteId?: string;
  parentId?: string | null;
  label?: string;
  path?: string | null;
  pageId?: string | null;
  position?: number;
}

export const MENU_MAX_DEPTH = 10;

export const toWebsitePathDto = (r: WebsitePathRow) => ({
  id: r.id,
  websiteId: r.website_id,
  parentId: r.parent_id,
  label: r.label,
  path: r.path,
  pageId: r.page_id,
  position: r.position,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const AUDIT = { allow: ['websiteId', 'parentId', 'label', 'path', 'pageId', 'position'] };
const view = (r: WebsitePathRow) => toWebsitePathDto(r) as unknown as Record<string, unknown>;

/**
 * Website paths (menu entries): ordered by position, nested through parentId (same website, no
 * cycles, at most 10 levels), optionally linked to a page of the same website. Audited.
 */
export class MenuService {
  constructor(
    private readonly deps: {
      kernel: ContentDeps;
      store: WebsitePathStore;
      /** After a write (menus are cached per website for the pages that show them). */
      onChange?(): void;
    },
  ) {}

  list(websiteId: string | undefined, limit: number, offset: number): Promise<WebsitePathRow[]> {
    return this.deps.store.list(websiteId, limit, offset);
  }

  async get(id: string, trx?: Tx): Promise<WebsitePathRow> {
    const row = await this.deps.store.find(id, trx);
    if (!row) throw notFound('Website path not found');
    return row;
  }

  private async check(trx: Tx, websiteId: string, id: string | null, input: WebsitePathInput): Promise<void> {
    if (input.pageId) {
      const page = await this.deps.store.pageWebsite(input.pageId, trx);
      if (!page || page.website_id !== websiteId) throw badRequest('Page not found in this website', 'pageId');
    }
    let parent = input.parentId ?? null;
    for (let depth = 1; parent; depth++) {
      if (parent === id) throw badRequest('An entry cannot be nested below itself', 'parentId');
      if (depth >= MENU_MAX_DEPTH) throw badRequest(`Menus nest at most ${MENU_MAX_DEPTH} levels`, 'parentId');
      const row = await this.deps.store.find(parent, trx);
      if (!row || row.website_id !== websiteId) throw badRequest('Parent entry not found in this website', 'parentId');
      parent = row.parent_id;
    }
  }

  /** `opts.trx`: inside the caller's transaction; `opts.audit: false` when the caller audits the whole write. */
  async create(
    ctx: AuditContext,
    input: WebsitePathInput & { websiteId: string; label: string },
    opts: { trx?: Tx; audit?: boolean } = {},
  ): Promise<WebsitePathRow> {
    return inTransaction(this.deps.kernel.db, opts.trx, async (trx) => {
      if (!(await this.deps.store.websiteExists(input.websiteId, trx)))
        throw badRequest('Website not found', 'websiteId');
      await this.check(trx, input.websiteId, null, input);
      const row = await this.deps.store.insert(
        {
          website_id: input.websiteId,
          parent_id: input.parentId ?? null,
          label: input.label,
          path: input.path ?? null,
          page_id: input.pageId ?? null,
          position: input.position ?? 0,
        },
        trx,
      );
      if (opts.audit !== false)
        await this.deps.kernel.audit.record(
          ctx,
          {
            action: 'website_path.create',
            targetType: 'website_path',
            targetId: row.id,
            targetLabel: row.label,
            ...diffForAudit(null, view(row), AUDIT),
          },
          trx,
        );
      return row;
    }).finally(() => this.deps.onChange?.());
  }

  async update(ctx: AuditContext, id: string, input: WebsitePathInput): Promise<WebsitePathRow> {
    return inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const before = await this.get(id, trx);
      if (input.websiteId !== undefined && input.websiteId !== before.website_id)
        throw badRequest('An entry cannot move to another website', 'websiteId');
      await this.check(trx, before.website_id, id, {
        ...input,
        parentId: input.parentId === undefined ? before.parent_id : input.parentId,
      });
      const change: Record<string, unknown> = {};
      if (input.parentId !== undefined) change.parent_id = input.parentId;
      if (input.label !== undefined) change.label = input.label;
      if (input.path !== undefined) change.path = input.path;
      if (input.pageId !== undefined) change.page_id = input.pageId;
      if (input.position !== undefined) change.position = input.position;
      const row = await this.deps.store.update(id, change, trx);
      const diff = diffForAudit(view(before), view(row), AUDIT);
      if (diff)
        await this.deps.kernel.audit.record(
          ctx,
          { action: 'website_path.update', targetType: 'website_path', targetId: id, targetLabel: row.label, ...diff },
          trx,
        );
      return row;
    }).finally(() => this.deps.onChange?.());
  }

  async remove(ctx: AuditContext, id: string): Promise<void> {
    await inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const before = await this.get(id, trx);
      await this.deps.store.remove(id, trx);
      await this.deps.kernel.audit.record(
        ctx,
        {
          action: 'website_path.delete',
          targetType: 'website_path',
          targetId: id,
          targetLabel: before.label,
          ...diffForAudit(view(before), null, AUDIT),
        },
        trx,
      );
    }).finally(() => this.deps.onChange?.());
  }
}
