import {
  badRequest,
  conflict,
  inTransaction,
  isUniqueViolation,
  notFound,
  type Actor,
  type AuditContext,
} from '../../../kernel/index.ts';
import type { DraftStore } from '../store/drafts.ts';
import type { KitRow, TemplateRow, TemplateStore } from '../store/templates.ts';
import type { ContentDeps } from './deps.ts';
import { type ContentNode, validateNodeTree } from './node-tree.ts';
import { checkIfMatch } from './preconditions.ts';
import { type StaffRow, type WorkingCopyKind, WorkingCopies, withDraft } from './working-copy.ts';

/** A template's working copy holds all its fields: path, name and content. */
const TEMPLATE_COPY: WorkingCopyKind = {
  owner: 'template',
  label: 'template',
  columns: { path: 'path', name: 'name', content: 'content' },
  treeFields: ['content'],
  trees: (fields) => ({ '': fields.content as ContentNode }),
};

export interface TemplateInput {
  path?: string;
  name?: string;
  content?: unknown;
}

export const KIT_MAX_TEMPLATES = 500;

export const toTemplateDto = (r: Omit<StaffRow<TemplateRow>, 'content'> & { content?: TemplateRow['content'] }) => ({
  id: r.id,
  path: r.path,
  name: r.name,
  ...(r.content !== undefined ? { content: r.content } : {}),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  ...(r.draft ? { draft: r.draft } : {}),
});
export const toKitDto = (r: KitRow) => ({
  id: r.id,
  name: r.name,
  templateIds: r.template_ids,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Page templates and kits. Content editing: not audited. */
export class TemplateService {
  /** The templates' working copies (working-copy.ts). */
  readonly copies: WorkingCopies<TemplateRow>;

  constructor(private readonly deps: { kernel: ContentDeps; store: TemplateStore; drafts: DraftStore }) {
    this.copies = new WorkingCopies(deps, TEMPLATE_COPY);
  }

  private checkPath(path: string | undefined): void {
    if (path !== undefined && !/^\/[A-Za-z0-9/._~-]*$/.test(path))
      throw badRequest('Template path must start with / and hold letters, digits, / . _ ~ -', 'path');
  }

  private tree(content: unknown) {
    return validateNodeTree(content, 'content', this.deps.kernel.pluginConfig.CONTENT_MAX_TREE_BYTES);
  }

  private async unique<T>(work: () => Promise<T>, field: string, what: string): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(`Another ${what} has this ${field}`, 'UNIQUE_VIOLATION', field);
      throw err;
    }
  }

  list(limit: number, offset: number) {
    return this.deps.store.listTemplates(limit, offset);
  }

  async get(id: string): Promise<TemplateRow> {
    const row = await this.deps.store.findTemplate(id);
    if (!row) throw notFound('Template not found');
    return row;
  }

  create(input: { path: string; name: string; content?: unknown }) {
    this.checkPath(input.path);
    const content = this.tree(input.content ?? { type: 'div', children: [] });
    return this.unique(
      () =>
        inTransaction(this.deps.kernel.db, undefined, (trx) =>
          this.deps.store.insertTemplate({ path: input.path, name: input.name, content }, trx),
        ),
      'path',
      'template',
    );
  }

  /**
   * Saves a template. By someone without objects:publish, or with `draft: true`, the change goes to
   * its working copy (working-copy.ts); a publisher's save goes live and is carried into the copy when
   * there is one. `ifMatch`: the tag the caller's state is based on (412 `EDIT_CONFLICT` when what
   * staff reads show, the copy when there is one, changed since).
   */
  update(
    actor: Actor,
    id: string,
    input: TemplateInput,
    opts: { ifMatch?: string; draft?: boolean } = {},
  ): Promise<StaffRow<TemplateRow>> {
    this.checkPath(input.path);
    const change = this.change(input);
    return this.unique(
      () =>
        inTransaction(this.deps.kernel.db, undefined, async (trx) => {
          const before = await this.deps.store.findTemplateForUpdate(id, trx);
          if (!before) throw notFound('Template not found');
          const draft = await this.copies.find(id, trx, 'update');
          checkIfMatch(opts.ifMatch, (draft ?? before).updated_at, 'template');
          if (this.copies.toCopy(actor, { live: true, hasCopy: draft !== null, draft: opts.draft })) {
            const next = { ...this.copies.current(before, draft), ...change };
            return withDraft(before, await this.copies.store(trx, actor, before, draft, next));
          }
          const row = (await this.deps.store.updateTemplate(id, change, trx))!;
          if (!draft) return row;
          const carried = await this.copies.store(trx, actor, row, draft, { ...draft.fields, ...change });
          return withDraft(row, carried);
        }),
      'path',
      'template',
    );
  }

  private change(input: TemplateInput): { path?: string; name?: string; content?: TemplateRow['content'] } {
    const out: { path?: string; name?: string; content?: TemplateRow['content'] } = {};
    if (input.path !== undefined) out.path = input.path;
    if (input.name !== undefined) out.name = input.name;
    if (input.content !== undefined) out.content = this.tree(input.content);
    return out;
  }

  /** GET /cms-one/templates/:id for staff: the working copy unless `version` is `live`. */
  async staffView(id: string, version: 'live' | 'draft' = 'draft') {
    return this.copies.view(await this.get(id), version);
  }

  async draftDiff(id: string) {
    return this.copies.diff(await this.get(id), await this.copies.find(id));
  }

  /** POST /cms-one/templates/:id/publish-draft (objects:publish); 409 when its path is taken meanwhile. */
  publishDraft(ctx: AuditContext, id: string): Promise<TemplateRow> {
    this.copies.checkPublisher(ctx.actor);
    return this.unique(
      () =>
        inTransaction(this.deps.kernel.db, undefined, async (trx) => {
          const before = await this.deps.store.findTemplateForUpdate(id, trx);
          if (!before) throw notFound('Template not found');
          const draft = await this.copies.find(id, trx, 'update');
          if (!draft) throw this.copies.missing();
          return this.copies.promote(
            trx,
            ctx,
            before,
            draft,
            async (fields) => (await this.deps.store.updateTemplate(id, fields as TemplateInput as never, trx))!,
            (row) => row.name,
          );
        }),
      'path',
      'template',
    );
  }

  async discardDraft(ctx: AuditContext, id: string): Promise<void> {
    await inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const before = await this.deps.store.findTemplateForUpdate(id, trx);
      if (!before) throw notFound('Template not found');
      await this.copies.discard(trx, ctx, before, before.name);
    });
  }

  async remove(id: string): Promise<void> {
    await inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      if (!(await this.deps.store.removeTemplate(id, trx))) throw notFound('Template not found');
    });
  }

  listKits(limit: number, offset: number) {
    return this.deps.store.listKits(limit, offset);
  }

  async getKit(id: string): Promise<KitRow> {
    const row = await this.deps.store.findKit(id);
    if (!row) throw notFound('Kit not found');
    return row;
  }

  createKit(input: { name: string; templateIds?: string[] }) {
    const ids = input.templateIds ?? [];
    return this.unique(
      () =>
        inTransaction(this.deps.kernel.db, undefined, async (trx) => {
          const existing = await this.deps.store.existingTemplateIds(ids, trx);
          ids.forEach((id, i) => {
            if (!existing.has(id)) throw badRequest('Template not found', `templateIds.${i}`);
          });
          return this.deps.store.insertKit({ name: input.name, template_ids: ids }, trx);
        }),
      'name',
      'kit',
    );
  }

  async appendTemplate(kitId: string, templateId: string, opts: { ifMatch?: string } = {}): Promise<KitRow> {
    return inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const kit = await this.deps.store.findKitForUpdate(kitId, trx);
      if (!kit) throw notFound('Kit not found');
      checkIfMatch(opts.ifMatch, kit.updated_at, 'kit');
      if (!(await this.deps.store.existingTemplateIds([templateId], trx)).size)
        throw badRequest('Template not found', 'templateId');
      if (kit.template_ids.length >= KIT_MAX_TEMPLATES)
        throw badRequest(`A kit holds at most ${KIT_MAX_TEMPLATES} templates`, 'templateId');
      return (await this.deps.store.appendToKit(kitId, templateId, trx))!;
    });
  }

  /**
   * Renames a kit or replaces its templates (ours: the spec only appends): the editor's kit view
   * removes and reorders with it. Every id must name a template (400 naming `templateIds.N`).
   */
  updateKit(id: string, input: { name?: string; templateIds?: string[] }, opts: { ifMatch?: string } = {}) {
    return this.unique(
      () =>
        inTransaction(this.deps.kernel.db, undefined, async (trx) => {
          const before = await this.deps.store.findKitForUpdate(id, trx);
          if (!before) throw notFound('Kit not found');
          checkIfMatch(opts.ifMatch, before.updated_at, 'kit');
          const ids = input.templateIds;
          if (ids) {
            const existing = await this.deps.store.existingTemplateIds(ids, trx);
            ids.forEach((templateId, i) => {
              if (!existing.has(templateId)) throw badRequest('Template not found', `templateIds.${i}`);
            });
          }
          return (await this.deps.store.updateKit(id, { name: input.name, template_ids: ids }, trx))!;
        }),
      'name',
      'kit',
    );
  }

  async removeKit(id: string): Promise<void> {
    await inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      if (!(await this.deps.store.removeKit(id, trx))) throw notFound('Kit not found');
    });
  }
}
