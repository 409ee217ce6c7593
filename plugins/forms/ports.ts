import type { Tx } from '../../kernel/index.ts';

/**
 * The registry `formNotifySources` (collected by this plugin): where the `notify` blocks authors saved
 * come from. The content plugin contributes its pages: a form is a node
 * `{ type: 'form', props: { classId, notify: { to, subject? } } }` in a page's tree. A submitted
 * `notify` block sends mail only when it equals one saved for that class, so a submitter can never
 * choose the recipient.
 */
export interface FormNotifySource {
  savedNotifyBlocks(classId: string, trx?: Tx): Promise<Array<{ websiteId: string; notify: unknown }>>;
}

/**
 * The registry `publishedFormSources` (collected by this plugin): whether a visitor can see a form for
 * a class. The content plugin contributes its pages: a form block `{ type: 'form', props: { classId } }`
 * in a published page's tree, or in a layout region of a website with a published page. A submit for
 * a class no source names is refused, so the public route cannot write objects of any other class.
 */
export interface PublishedFormSource {
  publishesForm(classId: string, trx?: Tx): Promise<boolean>;
}

declare module '../../kernel/index.ts' {
  interface PluginContributions {
    formNotifySources: FormNotifySource;
    publishedFormSources: PublishedFormSource;
  }
}
