import { inTransaction, locked, notFound, type Actor, type AuditContext, type Tx } from '../../../kernel/index.ts';
import type { DraftRow, DraftStore } from '../store/drafts.ts';
import type { SnippetRow, SnippetStore, SnippetWrite } from '../store/snippets.ts';
import type { VersionStore } from '../store/versions.ts';
import type { ContentDeps } from './deps.ts';
import { checkDataBindings } from './data-bindings.ts';
import { checkFormBlocks } from './form-node.ts';
import { validateNodeTree } from './node-tree.ts';
import { VERSIONS_KEPT } from './pages.ts';
import { checkIfMatch } from './preconditions.ts';
import type { ContentNode } from './node-tree.ts';
import { checkThumbnail } from './thumbnail.ts';
import { type StaffRow, type WorkingCopyKind, WorkingCopies, withDraft } from './working-copy.ts';

export interface SnippetInput {
  name?: string;
  websiteId?: string | null;
  content?: unknown;
  /** An editor's automatic save: refused with 423 while the snippet is locked. */
  autosave?: boolean;
}

/** A snippet as staff reads show it: the working copy's name and content over the live row. */
export type StaffSnippetRow = StaffRow<SnippetRow>;

/** A snippet's working copy holds its name and content; the thumbnail, lock and website stay live. */
const SNIPPET_COPY: WorkingCopyKind = {
  owner: 'snippet',
  label: 'snippet',
  columns: { name: 'name', content: 'content' },
  treeFields: ['content'],
  trees: (fields) => ({ '': fields.content as ContentNode }),
};
const withSnippetDraft = withDraft<SnippetRow>;

export const toSnippetDto = (row: StaffSnippetRow) => ({
  id: row.id,
  name: row.name,
  websiteId: row.website_id,
  ...(row.content !== undefined ? { content: row.content } : {}),
  locked: row.locked,
  thumbnail: row.thumbnail,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  ...(row.draft ? { draft: row.draft } : {}),
});

/** Snippets: node trees with version history, lock and thumbnail. Content editing is not audited. */
export class SnippetService {
  readonly copies: WorkingCopies<SnippetRow>;

  constructor(
    private readonly deps: { kernel: ContentDeps; store: SnippetStore; versions: VersionStore; drafts: DraftStore },
  ) {
    this.copies = new WorkingCopies(deps, SNIPPET_COPY);
  }

  list(filter: { websiteId?: string; limit: number; offset: number }) {
    return this.deps.store.list(filter);
  }

  async get(id: string, trx?: Tx): Promise<SnippetRow> {
    const row = await this.deps.store.find(id, trx);
    if (!row) throw notFound('Snippet not found');
    return row;
  }

  private async tree(content: unknown) {
    const tree = validateNodeTree(content, 'content', this.deps.kernel.pluginConfig.CONTENT_MAX_TREE_BYTES);
    await checkDataBindings(this.deps.kernel.dataObjects, tree);
    await checkFormBlocks(this.deps.kernel.dataObjects, tree);
    return tree;
  }

  async create(input: SnippetInput & { name: string }, opts: { trx?: Tx } = {}): Promise<SnippetRow> {
    const content = await this.tree(input.content ?? { type: 'div', children: [] });
    return inTransaction(this.deps.kernel.db, opts.trx, (trx) =>
      this.deps.store.insert({ name: input.name, website_id: input.websiteId ?? null, content }, trx),
    );
  }

  /**
   * Saves a snippet. With `draft: true`, or by someone without objects:publish (working-copy.ts), its
   * name and content go to its working copy (the site keeps drawing the live snippet until
   * `publishDraft`); the thumbnail and lock stay live. A publisher's save without `draft` goes live as
   * before and is carried into the working copy when there is one. `ifMatch` is checked against what
   * staff reads show (the working copy's time when there is one).
   */
  async update(
    actor: Actor,
    id: string,
    input: SnippetInput & { thumbnail?: string | null; locked?: boolean },
    opts: { ifMatch?: string; draft?: boolean; trx?: Tx } = {},
  ): Promise<StaffSnippetRow> {
    return inTransaction(this.deps.kernel.db, opts.trx, async (trx) => {
      const before = await this.deps.store.findForUpdate(id, trx);
      if (!before) throw notFound('Snippet not found');
      if (before.locked && input.autosave === true)
        throw locked('The snippet is locked: autosave is paused, save manually', 'SNIPPET_LOCKED');
      const draft = await this.copies.find(id, trx, 'update');
      checkIfMatch(opts.ifMatch, (draft ?? before).updated_at, 'snippet');
      const { name, content, ...rest } = input;
      const toCopy: SnippetInput = {
        ...(name !== undefined ? { name } : {}),
        ...(content !== undefined ? { content } : {}),
      };
      if (this.copies.toCopy(actor, { live: true, hasCopy: draft !== null, draft: opts.draft })) {
        const live = Object.keys(rest).some((k) => k !== 'autosave')
          ? await this.updateLive(actor, before, rest, trx)
          : before;
        return withSnippetDraft(live, await this.saveWorkingCopy(actor, live, draft, toCopy, trx));
      }
      const live = await this.updateLive(actor, before, input, trx);
      return withSnippetDraft(live, draft && (await this.saveWorkingCopy(actor, live, draft, toCopy, trx)));
    });
  }

  private async updateLive(
    actor: Actor,
    before: SnippetRow,
    input: SnippetInput & { thumbnail?: string | null; locked?: boolean },
    trx: Tx,
  ): Promise<SnippetRow> {
    const id = before.id;
    const w: SnippetWrite = {};
    if (input.content !== undefined) w.content = await this.tree(input.content);
    if (input.name !== undefined) w.name = input.name;
    if (input.websiteId !== undefined) w.website_id = input.websiteId;
    if (input.thumbnail !== undefined) w.thumbnail = checkThumbnail(input.thumbnail);
    if (input.locked !== undefined) w.locked = input.locked;
    if (w.content && JSON.stringify(w.content) !== JSON.stringify(before.content)) {
      await this.deps.versions.snapshot(
        {
          owner_type: 'snippet',
          owner_id: id,
          title: before.name,
          content: before.content,
          created_by: actor.type === 'user' ? actor.id : null,
        },
        VERSIONS_KEPT,
        trx,
      );
    }
    return this.deps.store.update(id, w, trx);
  }

  /** The working copy of `live` with `input` applied; removed when it equals live, kept when nothing changed. */
  private async saveWorkingCopy(
    actor: Actor,
    live: SnippetRow,
    draft: DraftRow | null,
    input: SnippetInput,
    trx: Tx,
  ): Promise<DraftRow | null> {
    const current = this.copies.current(live, draft);
    return this.copies.store(trx, actor, live, draft, {
      name: input.name ?? current.name,
      content: input.content === undefined ? current.content : await this.tree(input.content),
    });
  }

  /** GET /cms-one/snippets/:id for staff: the working copy unless `version` is `live`. */
  async staffView(id: string, version: 'live' | 'draft' = 'draft'): Promise<StaffSnippetRow> {
    return this.copies.view(await this.get(id), version);
  }

  async draftDiff(id: string) {
    return this.copies.diff(await this.get(id), await this.copies.find(id));
  }

  /**
   * POST /cms-one/snippets/:id/publish-draft (objects:publish): the working copy becomes the live
   * snippet (a save: version snapshot), audited as `snippet.publish_draft`.
   */
  async publishDraft(ctx: AuditContext, id: string): Promise<SnippetRow> {
    this.copies.checkPublisher(ctx.actor);
    return inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const before = await this.deps.store.findForUpdate(id, trx);
      if (!before) throw notFound('Snippet not found');
      const draft = await this.copies.find(id, trx, 'update');
      if (!draft) throw this.copies.missing();
      return this.copies.promote(
        trx,
        ctx,
        before,
        draft,
        (fields) => this.updateLive(ctx.actor, before, fields as SnippetInput, trx),
        (row) => row.name,
      );
    });
  }

  async discardDraft(ctx: AuditContext, id: string): Promise<void> {
    await inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const before = await this.deps.store.findForUpdate(id, trx);
      if (!before) throw notFound('Snippet not found');
      await this.copies.discard(trx, ctx, before, before.name);
    });
  }

  async remove(id: string): Promise<void> {
    await inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      if (!(await this.deps.store.remove(id, trx))) throw notFound('Snippet not found');
      await this.deps.versions.removeOwner('snippet', id, trx);
    });
  }

  versions(id: string) {
    return this.deps.versions.list('snippet', id);
  }

  async version(id: string, versionId: string) {
    const v = await this.deps.versions.find('snippet', id, versionId);
    if (!v) throw notFound('Version not found');
    return v;
  }
}
