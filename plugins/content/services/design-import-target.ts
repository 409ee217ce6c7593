import type { PluginContributions } from '../../../kernel/index.ts';
import type { ContentServices } from './index.ts';

/**
 * Where an imported design becomes a page (the figma plugin's registry `designImportTargets`): the
 * tree passes the page service's own checks, and the draft is made by its own create.
 */
export function designImportTarget(s: ContentServices): PluginContributions['designImportTargets'] {
  return {
    checkTarget: (websiteId, locale, trx) => s.pages.checkTarget(websiteId, locale, trx),
    checkContent: (content) => s.pages.checkContent(content),
    async createDraft(actor, input, trx) {
      const row = await s.pages.create(actor, { ...input, published: false }, { trx });
      return {
        id: row.id,
        websiteId: row.website_id,
        locale: row.locale,
        path: row.path,
        title: row.title,
        published: row.published,
      };
    },
  };
}
