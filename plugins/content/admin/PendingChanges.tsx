import { Badge, Button, Group, List, Paper, Stack, Table, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, PageHeader, showSaved, showSaveError, unwrap, useCan } from '../../admin-ui/app/src/sdk/index.ts';

type Pending = {
  ownerType: string;
  id: string;
  label: string | null;
  websiteId: string | null;
  updatedAt: string;
  updatedBy: string | null;
};
type Diff = {
  changed: string[];
  fields: Array<{ field: string; live: unknown; draft: unknown }>;
  content: { added: string[]; removed: string[]; changed: string[] };
};

const KIND: Record<string, string> = { page: 'Page', snippet: 'Snippet', template: 'Template', layout: 'Layout' };
const pendingKey = ['content', 'pending-changes'] as const;

/** The record's working-copy routes (services/working-copy.ts), by its kind. */
function base(d: Pending): string {
  if (d.ownerType === 'layout') return `/cms-one/websites/${d.websiteId}/templates/${d.id}`;
  return `/cms-one/${d.ownerType === 'page' ? 'pages' : d.ownerType === 'snippet' ? 'snippets' : 'templates'}/${d.id}`;
}

// The four kinds share one route shape; the typed client takes them by their literal paths.
const untyped = api as unknown as {
  GET(path: string, init?: unknown): Promise<{ data?: unknown; error?: unknown; response: Response }>;
  POST(path: string, init?: unknown): Promise<{ data?: unknown; error?: unknown; response: Response }>;
  DELETE(path: string, init?: unknown): Promise<{ data?: unknown; error?: unknown; response: Response }>;
};

const short = (value: unknown) => {
  const text = JSON.stringify(value) ?? 'none';
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
};

function Review({ draft, onDone }: { draft: Pending; onDone: () => void }) {
  const can = useCan();
  const [busy, setBusy] = useState<'publish' | 'discard'>();
  const diff = useQuery({
    queryKey: [...pendingKey, draft.ownerType, draft.id, draft.updatedAt],
    queryFn: async () => unwrap<unknown>(await untyped.GET(`${base(draft)}/draft/diff`)) as Diff,
    retry: false,
  });
  const mayPublish = can('objects:publish');
  const act = async (what: 'publish' | 'discard') => {
    setBusy(what);
    try {
      unwrap<unknown>(
        what === 'publish'
          ? await untyped.POST(`${base(draft)}/publish-draft`)
          : await untyped.DELETE(`${base(draft)}/draft`),
      );
      showSaved(what === 'publish' ? 'Changes published' : 'Changes discarded');
      onDone();
    } catch (err) {
      showSaveError(err);
    } finally {
      setBusy(undefined);
    }
  };
  const d = diff.data;
  return (
    <Paper withBorder p="md" aria-label={`Changes to ${draft.label ?? draft.id}`}>
      <Stack gap="xs">
        {diff.isLoading && <Text size="sm">Loading the changes…</Text>}
        {d && (
          <>
            <Text size="sm">Changed: {d.changed.join(', ') || 'nothing'}</Text>
            {d.fields.length > 0 && (
              <List size="sm" aria-label="Changed values">
                {d.fields.map((f) => (
                  <List.Item key={f.field}>
                    {f.field}: {short(f.live)} → {short(f.draft)}
                  </List.Item>
                ))}
              </List>
            )}
            {(d.content.added.length > 0 || d.content.removed.length > 0 || d.content.changed.length > 0) && (
              <Text size="sm">
                Blocks: {d.content.added.length} added, {d.content.removed.length} removed, {d.content.changed.length}{' '}
                changed
              </Text>
            )}
          </>
        )}
        <Group gap="xs">
          <Button size="xs" disabled={!mayPublish} loading={busy === 'publish'} onClick={() => void act('publish')}>
            Publish changes
          </Button>
          <Button size="xs" variant="default" loading={busy === 'discard'} onClick={() => void act('discard')}>
            Discard changes
          </Button>
        </Group>
        {!mayPublish && (
          <Text size="sm" c="dimmed">
            Publishing needs the objects:publish permission: ask someone who may publish to review these changes.
          </Text>
        )}
      </Stack>
    </Paper>
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
        unwrap<unknown>(await untyped.GET('/cms-one/drafts', { params: { query: { limit: 200 } } })) as {
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
