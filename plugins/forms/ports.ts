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

declare module '../../kernel/index.ts' {
  interface PluginContributions {
    formNotifySources: FormNotifySource;
  }
}
