import { Badge, Button, Table, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, type DraftDiff, DraftReview, PageHeader, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { draftRoutes } from './content-api.ts';

type Pending = {
  ownerType: string;
  id: string;
  label: string | null;
  websiteId: string | null;
  updatedAt: string;
  updatedBy: string | null;
};
const KIND: Record<string, string> = { page: 'Page', snippet: 'Snippet', template: 'Template', layout: 'Layout' };
const pendingKey = ['content', 'pending-changes'] as const;

/** One copy's review: the dashboard's shared `DraftReview` over the record's working-copy routes. */
function Review({ draft, onDone }: { draft: Pending; onDone: () => void }) {
  const routes = draftRoutes(draft);
  return (
    <DraftReview
      label={`Changes to ${draft.label ?? draft.id}`}
      diffKey={[...pendingKey, draft.ownerType, draft.id, draft.updatedAt]}
      loadDiff={async () => unwrap<unknown>(await routes.diff()) as DraftDiff}
      publish={async () => unwrap<unknown>(await routes.publish())}
      discard={async () => unwrap<unknown>(await routes.discard())}
      onDone={onDone}
    />
  );
}

/**
 * `/admin/pending-changes`: every page, snippet, template and layout whose working copy differs from
 * live (GET /cms-one/drafts), newest first, each with its changes, Publish changes and Discard changes.
 */
export default function PendingChanges() {
  const client = useQueryClient();
  const [open, setOpen] = useState<string>();
  const list = useQuery({
    queryKey: pendingKey,
    queryFn: async () =>
      (
        unwrap(await api.GET('/cms-one/drafts', { params: { query: { limit: 200, offset: 0 } } })) as {
          drafts: Pending[];
        }
      ).drafts,
  });
  const drafts = list.data ?? [];
  const done = () => {
    setOpen(undefined);
    // The list only: the review of a published or discarded copy would ask for a diff that is gone.
    client.removeQueries({ queryKey: pendingKey, exact: false, predicate: (q) => q.queryKey.length > 2 });
    void client.invalidateQueries({ queryKey: pendingKey, exact: true });
  };
  return (
    <>
      <PageHeader
        title="Pending changes"
        description="Pages, snippets, templates and layouts with a working copy that differs from the live version. The site shows the live version until the changes are published."
      />
      {list.isLoading && <Text role="status">Loading…</Text>}
      {list.isSuccess && drafts.length === 0 && <Text>No pending changes: everything is live.</Text>}
      {drafts.length > 0 && (
        <Table aria-label="Pending changes">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Record</Table.Th>
              <Table.Th>Kind</Table.Th>
              <Table.Th>Saved</Table.Th>
              <Table.Th>Review</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {drafts.map((d) => {
              const key = `${d.ownerType}:${d.id}`;
              return [
                <Table.Tr key={key}>
                  <Table.Td>{d.label ?? d.id}</Table.Td>
                  <Table.Td>
                    <Badge variant="light">{KIND[d.ownerType] ?? d.ownerType}</Badge>
                  </Table.Td>
                  <Table.Td>{new Date(d.updatedAt).toLocaleString()}</Table.Td>
                  <Table.Td>
                    <Button
                      size="xs"
                      variant="default"
                      aria-expanded={open === key}
                      aria-label={`Review changes to ${d.label ?? d.id}`}
                      onClick={() => setOpen(open === key ? undefined : key)}
                    >
                      Review
                    </Button>
                  </Table.Td>
                </Table.Tr>,
                open === key && (
                  <Table.Tr key={`${key}:review`}>
                    <Table.Td colSpan={4}>
                      <Review draft={d} onDone={done} />
                    </Table.Td>
                  </Table.Tr>
                ),
              ];
            })}
          </Table.Tbody>
        </Table>
      )}
    </>
  );
}
