import { inTransaction, locked, notFound, type Actor, type Tx } from '../../../kernel/index.ts';
import type { SnippetRow, SnippetStore, SnippetWrite } from '../store/snippets.ts';
import type { VersionStore } from '../store/versions.ts';
import type { ContentDeps } from './deps.ts';
import { checkDataBindings } from './data-bindings.ts';
import { checkFormBlocks } from './form-node.ts';
import { validateNodeTree } from './node-tree.ts';
import { VERSIONS_KEPT } from './pages.ts';
import { checkIfMatch } from './preconditions.ts';
import { checkThumbnail } from './thumbnail.ts';

export interface SnippetInput {
  name?: string;
  websiteId?: string | null;
  content?: unknown;
  /** An editor's automatic save: refused with 423 while the snippet is locked. */
  autosave?: boolean;
}

export const toSnippetDto = (row: SnippetRow) => ({
  id: row.id,
  name: row.name,
  websiteId: row.website_id,
  ...(row.content !== undefined ? { content: row.content } : {}),
  locked: row.locked,
  thumbnail: row.thumbnail,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** Snippets: node trees with version history, lock and thumbnail. Content editing is not audited. */
export class SnippetService {
  constructor(private readonly deps: { kernel: ContentDeps; store: SnippetStore; versions: VersionStore }) {}

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

  async update(
    actor: Actor,
    id: string,
    input: SnippetInput & { thumbnail?: string | null; locked?: boolean },
    opts: { ifMatch?: string } = {},
  ): Promise<SnippetRow> {
    return inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const before = await this.deps.store.findForUpdate(id, trx);
      if (!before) throw notFound('Snippet not found');
      if (before.locked && input.autosave === true)
        throw locked('The snippet is locked: autosave is paused, save manually', 'SNIPPET_LOCKED');
      checkIfMatch(opts.ifMatch, before.updated_at, 'snippet');
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
