/**
 * What the mail plugin collects and offers, by registry (no plugin imports this one):
 * - it serves the kernel's mail port (`mail.send`): every mail becomes an outbox row, in the caller's
 *   transaction when one is given;
 * - it collects `mailRenderers`: the e-mail HTML renderer of the snippet and page `render` routes (the
 *   content plugin contributes it), used for the HTML part of templates; without one, mails are text only;
 * - it contributes to `dataSubjectSources` (collected by a data-subject plugin): the mail log entries of
 *   a person.
 */
export interface MailRenderer {
  /** Throws a 400 naming the bad part (`html.children.0.props.href`) when `tree` is not valid content. */
  check(tree: unknown, field: string): void;
  /** A standalone e-mail document of a valid node tree, every text and attribute escaped. */
  renderEmail(title: string, tree: unknown): Promise<string>;
}

declare module '../../kernel/index.ts' {
  interface PluginContributions {
    mailRenderers: MailRenderer;
  }
}
