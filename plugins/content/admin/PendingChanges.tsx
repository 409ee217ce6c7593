import { Badge, Button, Table, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import {
  api,
  type DraftDiff,
  DraftReview,
  PageHeader,
  TextLink,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { draftRoutes } from './content-api.ts';

type Pending = {
  ownerType: string;
  id: string;
  label: string | null;
  websiteId: string | null;
  updatedAt: string;
  updatedBy: string | null;
};
/** A data object's working copy (`GET /data-objects/drafts`, the data plugin's route, read over HTTP). */
type ObjectPending = {
  objectId: string;
  class: { id: string; name: string };
  locale: string;
  updatedAt: string;
  updatedBy: string | null;
};
/** One row of the list: a content record's copy (reviewed here) or an object's (reviewed on its screen). */
type Row = { key: string; kind: string; label: string; to: string; updatedAt: string; content?: Pending };
const KIND: Record<string, string> = {
  page: 'Page',
  snippet: 'Snippet',
  template: 'Template',
  layout: 'Layout',
  object: 'Data object',
};
const pendingKey = ['content', 'pending-changes'] as const;
const objectsKey = ['content', 'pending-changes-objects'] as const;

/** The dashboard screen where a content record's own draft panel is. */
function screenOf(d: Pending): string {
  if (d.ownerType === 'page') return `/admin/pages/${d.id}`;
  if (d.ownerType === 'snippet') return `/admin/snippets/${d.id}`;
  if (d.ownerType === 'template') return `/admin/templates/${d.id}`;
  return `/admin/websites/${d.websiteId}/layouts/${d.id}`;
}

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
 * `/admin/pending-changes`: every page, snippet, template, layout and data object whose working copy
 * differs from live (`GET /cms-one/drafts` and, for who may read objects, `GET /data-objects/drafts`),
 * newest first. Each row links to the record's screen (its draft panel); content records are also
 * reviewed in place, with their changes, Publish changes and Discard changes.
 */
export default function PendingChanges() {
  const client = useQueryClient();
  const can = useCan();
  const readsObjects = can('data_objects:read');
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
  const objects = useQuery({
    queryKey: objectsKey,
    enabled: readsObjects,
    queryFn: async () =>
      (
        unwrap(await api.GET('/data-objects/drafts', { params: { query: { limit: 100, offset: 0 } } })) as {
          drafts: ObjectPending[];
        }
      ).drafts,
  });
  const rows: Row[] = [
    ...(list.data ?? []).map((d) => ({
      key: `${d.ownerType}:${d.id}`,
      kind: d.ownerType,
      label: d.label ?? d.id,
      to: screenOf(d),
      updatedAt: d.updatedAt,
      content: d,
    })),
    ...(objects.data ?? []).map((o) => ({
      key: `object:${o.objectId}`,
      kind: 'object',
      label: `${o.class.name} ${o.objectId.slice(0, 8)} (${o.locale})`,
      to: `/admin/data/objects/${o.objectId}`,
      updatedAt: o.updatedAt,
    })),
  ].sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0));
  const loading = list.isLoading || (readsObjects && objects.isLoading);
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
        description="Pages, snippets, templates, layouts and data objects with a working copy that differs from the live version. The site shows the live version until the changes are published."
      />
      {loading && <Text role="status">Loading…</Text>}
      {(list.isError || objects.isError) && (
        <Text c="red.9">Some pending changes could not be read: {(list.error ?? objects.error)?.message}</Text>
      )}
      {!loading && list.isSuccess && rows.length === 0 && <Text>No pending changes: everything is live.</Text>}
      {rows.length > 0 && (
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
            {rows.map((d) => {
              const key = d.key;
              return [
                <Table.Tr key={key}>
                  <Table.Td>
                    <TextLink to={d.to}>{d.label}</TextLink>
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="light">{KIND[d.kind] ?? d.kind}</Badge>
                  </Table.Td>
                  <Table.Td>{new Date(d.updatedAt).toLocaleString()}</Table.Td>
                  <Table.Td>
                    {d.content ? (
                      <Button
                        size="xs"
                        variant="default"
                        aria-expanded={open === key}
                        aria-label={`Review changes to ${d.label}`}
                        onClick={() => setOpen(open === key ? undefined : key)}
                      >
                        Review
                      </Button>
                    ) : (
                      <TextLink to={d.to}>Review on its screen</TextLink>
                    )}
                  </Table.Td>
                </Table.Tr>,
                open === key && d.content && (
                  <Table.Tr key={`${key}:review`}>
                    <Table.Td colSpan={4}>
                      <Review draft={d.content} onDone={done} />
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
