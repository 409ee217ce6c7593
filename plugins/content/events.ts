import type { Actor, ChangeActor, RecordHooks, Tx } from '../../kernel/index.ts';
import type { PageRow } from './store/pages.ts';

/**
 * Page changes announced through the record-change hooks (record type `page`), inside the write's
 * transaction: `published` / `unpublished` (object events send them as `page.published` /
 * `page.unpublished`) and `created`, `updated`, `deleted` (for search; object events ignore them).
 * `data` carries ids and labels only, never content.
 */
export type PageChangeKind = 'created' | 'updated' | 'deleted' | 'published' | 'unpublished';

export const changeActor = (actor: Actor): ChangeActor =>
  actor.type === 'user' ? { type: 'user', id: actor.id } : { type: 'system', id: null };

export async function announcePage(
  hooks: RecordHooks,
  trx: Tx,
  kind: PageChangeKind,
  page: PageRow,
  actor: Actor,
  changedFields?: string[],
): Promise<void> {
  await hooks.announce(trx, {
    recordType: 'page',
    recordId: page.id,
    kind,
    ...(changedFields ? { changedFields } : {}),
    actor: changeActor(actor),
    data: {
      id: page.id,
      websiteId: page.website_id,
      translationGroupId: page.translation_group_id,
      locale: page.locale,
      path: page.path,
      title: page.title,
      published: page.published,
    },
  });
}
