import type { PluginContributions } from '../../../kernel/index.ts';
import type { PageStore } from '../store/pages.ts';
import { validateNodeTree } from './node-tree.ts';
import { renderEmailHtml } from './render.ts';
import type { SettingsService } from './settings.ts';

/**
 * Registry `mailRenderers` (mail plugin): the e-mail renderer of the snippet and page `render`
 * routes, so mail templates (node trees) are checked and rendered by the same rules, not a second
 * renderer.
 */
export function mailRenderer(deps: {
  settings: SettingsService;
  maxTreeBytes: number;
}): PluginContributions['mailRenderers'] {
  return {
    check: (tree, field) => void validateNodeTree(tree, field, deps.maxTreeBytes),
    renderEmail: async (title, tree) =>
      renderEmailHtml(title, validateNodeTree(tree, 'html', deps.maxTreeBytes), {
        stripComments: await deps.settings.stripHtmlComments(),
      }),
  };
}

/**
 * Registry `publishedFormSources` (forms plugin): a class takes public submits only while a visitor
 * can see a form for it, in a published page or a layout region of a website with a published page.
 */
export function publishedFormSource(pages: PageStore): PluginContributions['publishedFormSources'] {
  return { publishesForm: (classId, trx) => pages.publishesForm(classId, trx) };
}

/** Registry `formNotifySources` (forms plugin): the `notify` blocks authors saved in forms of pages. */
export function formNotifySource(pages: PageStore): PluginContributions['formNotifySources'] {
  return {
    savedNotifyBlocks: async (classId, trx) =>
      (await pages.formNotifyBlocks(classId, trx)).map((r) => ({ websiteId: r.website_id, notify: r.notify })),
  };
}
