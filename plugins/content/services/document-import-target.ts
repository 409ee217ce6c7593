import type { PluginContributions } from '../../../kernel/index.ts';
import type { ContentServices } from './index.ts';
import { type ContentNode, sanitizeNodeTree } from './node-tree.ts';

/**
 * Where migrated documents become pages, staged pages and snippets (the migration plugin's registry
 * `documentImportTargets`): every write goes through the page, staged page and snippet services, so
 * the trees pass a page save's checks and changes are announced as any other.
 */
export function documentImportTarget(s: ContentServices): PluginContributions['documentImportTargets'] {
  return {
    async website(websiteId, trx) {
      const site = await s.pageStore.websiteName(websiteId, trx ?? s.kernel.db);
      return site && { id: site.id, name: site.name, rootPath: site.root_path, locales: [...site.locales] };
    },
    cleanTree: (tree) => sanitizeNodeTree(tree),
    async savePage(actor, input, trx) {
      const current = input.pageId ? await s.pageStore.find(input.pageId, trx) : undefined;
      if (current) {
        await s.pages.update(
          actor,
          current.id,
          {
            path: input.path,
            title: input.title,
            seo: input.seo,
            content: input.content,
            ...(input.published !== undefined && input.published !== current.published
              ? { published: input.published }
              : {}),
          },
          { trx },
        );
        return { id: current.id, created: false };
      }
      const row = await s.pages.create(
        actor,
        {
          websiteId: input.websiteId,
          locale: input.locale,
          path: input.path,
          title: input.title,
          seo: input.seo,
          content: input.content,
          published: input.published === true,
        },
        { trx },
      );
      return { id: row.id, created: true };
    },
    async stagePage(input, trx) {
      await s.pages.checkTarget(input.websiteId, input.locale, trx);
      await s.pages.checkContent(input.content);
      return s.stagedStore.upsertBySource(
        {
          website_id: input.websiteId,
          locale: input.locale,
          path: input.path,
          title: input.title,
          content: input.content as ContentNode,
          seo: input.seo as Record<string, unknown>,
          publish: input.publish,
          source: input.source,
        },
        trx,
      );
    },
    async saveSnippet(actor, input, trx) {
      const current = input.snippetId ? await s.snippetStore.find(input.snippetId, trx) : undefined;
      if (current) {
        await s.snippets.update(actor, current.id, { name: input.name, content: input.content }, { trx });
        return { id: current.id, created: false };
      }
      const row = await s.snippets.create(
        { name: input.name, websiteId: input.websiteId, content: input.content },
        { trx },
      );
      return { id: row.id, created: true };
    },
    promoteStaged: (actor, filter, trx) => s.staged.promoteBySource(actor, filter.sourcePrefix, filter.ids, trx),
  };
}
