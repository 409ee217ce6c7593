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
import { sameFields } from './page-drafts.ts';
import { checkThumbnail } from './thumbnail.ts';
import { diffTrees } from './tree-diff.ts';

export interface SnippetInput {
  name?: string;
  websiteId?: string | null;
  content?: unknown;
  /** An editor's automatic save: refused with 423 while the snippet is locked. */
  autosave?: boolean;
}

/** A snippet as staff reads show it: the working copy's name and content over the live row. */
export type StaffSnippetRow = SnippetRow & { draft?: { updatedAt: Date; updatedBy: string | null } };

function withSnippetDraft(row: SnippetRow, draft: DraftRow | null): StaffSnippetRow {
  if (!draft) return row;
  return {
    ...row,
    ...(draft.fields as Pick<SnippetRow, 'name' | 'content'>),
    updated_at: draft.updated_at,
    draft: { updatedAt: draft.updated_at, updatedBy: draft.updated_by },
  };
}

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
  constructor(
    private readonly deps: { kernel: ContentDeps; store: SnippetStore; versions: VersionStore; drafts: DraftStore },
  ) {}

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

  async create(input: SnippetInput & { name: string }): Promise<SnippetRow> {
    const content = await this.tree(input.content ?? { type: 'div', children: [] });
    return inTransaction(this.deps.kernel.db, undefined, (trx) =>
      this.deps.store.insert({ name: input.name, website_id: input.websiteId ?? null, content }, trx),
    );
  }

  /**
   * Saves a snippet. With `draft: true` its name and content go to its working copy (the site keeps
   * drawing the live snippet until `publishDraft`); the thumbnail and lock stay live. A save without
   * `draft` goes live as before and is carried into the working copy when there is one. `ifMatch` is
   * checked against what staff reads show (the working copy's time when there is one).
   */
  async update(
    actor: Actor,
    id: string,
    input: SnippetInput & { thumbnail?: string | null; locked?: boolean },
    opts: { ifMatch?: string; draft?: boolean } = {},
  ): Promise<StaffSnippetRow> {
    return inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const before = await this.deps.store.findForUpdate(id, trx);
      if (!before) throw notFound('Snippet not found');
      if (before.locked && input.autosave === true)
        throw locked('The snippet is locked: autosave is paused, save manually', 'SNIPPET_LOCKED');
      const draft = await this.deps.drafts.find('snippet', id, trx, 'update');
      checkIfMatch(opts.ifMatch, (draft ?? before).updated_at, 'snippet');
      const { name, content, ...rest } = input;
      const toCopy: SnippetInput = {
        ...(name !== undefined ? { name } : {}),
        ...(content !== undefined ? { content } : {}),
      };
      if (opts.draft === true) {
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
    const current = { name: live.name, content: live.content, ...(draft?.fields ?? {}) };
    const next = {
      name: input.name ?? current.name,
      content: input.content === undefined ? current.content : await this.tree(input.content),
    };
    if (draft && sameFields(next, draft.fields)) return draft;
    if (sameFields(next, { name: live.name, content: live.content })) {
      if (draft) await this.deps.drafts.remove('snippet', live.id, trx);
      return null;
    }
    return this.deps.drafts.save('snippet', live.id, next, actor.type === 'user' ? actor.id : null, trx);
  }

  /** GET /cms-one/snippets/:id for staff: the working copy unless `version` is `live`. */
  async staffView(id: string, version: 'live' | 'draft' = 'draft'): Promise<StaffSnippetRow> {
    const row = await this.get(id);
    return withSnippetDraft(row, version === 'live' ? null : await this.deps.drafts.find('snippet', id));
  }

  async draftDiff(id: string) {
    const row = await this.get(id);
    const draft = await this.deps.drafts.find('snippet', id);
    if (!draft) throw notFound('This snippet has no working copy', 'DRAFT_NOT_FOUND');
    const copy = withSnippetDraft(row, draft);
    const changed = [
      ...(row.name !== copy.name ? ['name'] : []),
      ...(sameFields({ c: row.content }, { c: copy.content }) ? [] : ['content']),
    ];
    return {
      changed,
      fields: changed.includes('name') ? [{ field: 'name', live: row.name, draft: copy.name }] : [],
      content: diffTrees(row.content, copy.content),
    };
  }

  /**
   * POST /cms-one/snippets/:id/publish-draft: the working copy becomes the live snippet (a save:
   * version snapshot), audited as `snippet.publish_draft`. Anyone who may save the snippet live may.
   */
  async publishDraft(ctx: AuditContext, id: string): Promise<SnippetRow> {
    return inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const before = await this.deps.store.findForUpdate(id, trx);
      if (!before) throw notFound('Snippet not found');
      const draft = await this.deps.drafts.find('snippet', id, trx, 'update');
      if (!draft) throw notFound('This snippet has no working copy', 'DRAFT_NOT_FOUND');
      await this.deps.drafts.remove('snippet', id, trx);
      const row = await this.updateLive(ctx.actor, before, draft.fields as SnippetInput, trx);
      await this.deps.kernel.audit.record(
        ctx,
        { action: 'snippet.publish_draft', targetType: 'snippet', targetId: id, targetLabel: row.name },
        trx,
      );
      return row;
    });
  }

  async discardDraft(ctx: AuditContext, id: string): Promise<void> {
    await inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const before = await this.deps.store.findForUpdate(id, trx);
      if (!before) throw notFound('Snippet not found');
      if (!(await this.deps.drafts.remove('snippet', id, trx)))
        throw notFound('This snippet has no working copy', 'DRAFT_NOT_FOUND');
      await this.deps.kernel.audit.record(
        ctx,
        { action: 'snippet.discard_draft', targetType: 'snippet', targetId: id, targetLabel: before.name },
        trx,
      );
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
