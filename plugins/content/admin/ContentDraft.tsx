import { type DraftDiff, DraftReview, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { draftRoutes } from './content-api.ts';

/** A record of one of the four kinds with a working copy: what its staff read answers. */
export type DraftOwner =
  | { ownerType: 'page' | 'snippet' | 'template'; id: string }
  | { ownerType: 'layout'; id: string; websiteId: string };

/**
 * The working copy of a page, snippet, template or layout on its screen: the form above shows the
 * copy, the site shows the live version until someone who may publish publishes the changes. Nothing
 * when the record has no working copy. The review is the dashboard's shared one (`DraftReview`).
 */
export function ContentDraft(props: {
  owner: DraftOwner;
  draft: { updatedAt: string } | undefined;
  /** Whether the viewer may edit the record (Discard changes needs the record's edit permission). */
  canEdit: boolean;
  onDone(): Promise<unknown>;
}) {
  if (!props.draft) return null;
  const routes = draftRoutes(props.owner);
  return (
    <DraftReview
      // A new save is a new copy to review (a published or discarded one hides its panel).
      key={props.draft.updatedAt}
      label="Draft"
      title="Draft — live version differs"
      savedAt={props.draft.updatedAt}
      note="The site shows the live version until the changes are published."
      diffKey={['content', 'drafts', props.owner.ownerType, props.owner.id, props.draft.updatedAt]}
      loadDiff={async () => unwrap<unknown>(await routes.diff()) as DraftDiff}
      publish={async () => unwrap<unknown>(await routes.publish())}
      discard={props.canEdit ? async () => unwrap<unknown>(await routes.discard()) : undefined}
      onDone={async () => {
        await props.onDone();
      }}
    />
  );
}
