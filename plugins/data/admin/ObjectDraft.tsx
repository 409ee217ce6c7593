import { useQueryClient } from '@tanstack/react-query';
import { api, type DraftDiff, DraftReview, unwrap, useCan } from '../../admin-ui/app/src/sdk/index.ts';
import { type DataObject, keys } from './model.ts';

/**
 * A published object's working copy: the form shows it, the site and the public API show the live
 * version until someone who may publish publishes the changes (or anyone who may edit discards them).
 * The review itself is the dashboard's shared one (`DraftReview`).
 */
export function DraftPanel({ object }: { object: DataObject }) {
  const can = useCan();
  const client = useQueryClient();
  if (!object.draft) return null;
  const path = { params: { path: { id: object.id } } };
  return (
    <DraftReview
      // A new save is a new copy to review (a published or discarded one hides its panel).
      key={object.draft.updatedAt}
      label="Draft"
      title="Draft — live version differs"
      savedAt={object.draft.updatedAt}
      note="The site and the public API show the live version until the changes are published."
      diffKey={[...keys.object(object.id), object.draft.updatedAt]}
      loadDiff={async () => unwrap<unknown>(await api.GET('/data-objects/{id}/draft/diff', path)) as DraftDiff}
      publish={async () => unwrap<unknown>(await api.POST('/data-objects/{id}/publish-draft', path))}
      discard={
        can('data_objects:write')
          ? async () => unwrap<unknown>(await api.DELETE('/data-objects/{id}/draft', path))
          : undefined
      }
      onDone={() => client.invalidateQueries({ queryKey: keys.objects })}
    />
  );
}
