import { Anchor, Badge, Button, CopyButton, Group, NumberInput, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import {
  api,
  confirmDestructive,
  ErrorState,
  LoadingState,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { type DataObject, keys, type PreviewLink } from './model.ts';

/** Published or not, and the workflow's place with the transitions the user may run from it. */
export function StatusPanel({ object }: { object: DataObject }) {
  const can = useCan();
  const client = useQueryClient();
  const [busy, setBusy] = useState<string>();
  const transitions = useQuery({
    queryKey: [...keys.object(object.id), 'transitions', object.workflowState],
    queryFn: async () =>
      unwrap<unknown>(await api.GET('/data-objects/{id}/transitions', { params: { path: { id: object.id } } })) as {
        place: string | null;
        transitions: { name: string; label?: string; to: string }[];
      },
    retry: false,
  });
  const refresh = () => client.invalidateQueries({ queryKey: keys.objects });
  const publish = async (published: boolean) => {
    setBusy('publish');
    try {
      unwrap<unknown>(
        await api.PATCH('/data-objects/{id}', { params: { path: { id: object.id } }, body: { published } }),
      );
      showSaved(published ? 'Published' : 'Unpublished');
      await refresh();
    } catch (err) {
      showSaveError(err);
    } finally {
      setBusy(undefined);
    }
  };
  const run = async (transition: string) => {
    setBusy(transition);
    try {
      unwrap<unknown>(
        await api.POST('/data-objects/{id}/transition', { params: { path: { id: object.id } }, body: { transition } }),
      );
      showSaved('Moved');
      await refresh();
    } catch (err) {
      showSaveError(err);
    } finally {
      setBusy(undefined);
    }
  };
  // A class without a workflow answers its transitions with an empty list and no place.
  const wf = transitions.data;
  return (
    <Paper withBorder p="md">
      <Title order={2} size="h4" mb="xs">
        Status
      </Title>
      <Stack gap="sm">
        <Group gap="xs">
          <Badge color={object.published ? 'green' : 'gray'} variant="light">
            {object.published ? 'Published' : 'Draft'}
          </Badge>
          {wf?.place && <Badge variant="outline">Place: {wf.place}</Badge>}
        </Group>
        {can('objects:publish') && (
          <Group gap="xs">
            {object.published ? (
              <Button size="xs" variant="default" loading={busy === 'publish'} onClick={() => publish(false)}>
                Unpublish
              </Button>
            ) : (
              <Button size="xs" loading={busy === 'publish'} onClick={() => publish(true)}>
                Publish
              </Button>
            )}
          </Group>
        )}
        {wf && wf.transitions.length > 0 && (
          <Group gap="xs" role="group" aria-label="Workflow transitions">
            {wf.transitions.map((t) => (
              <Button key={t.name} size="xs" variant="light" loading={busy === t.name} onClick={() => run(t.name)}>
                {t.label || t.name} → {t.to}
              </Button>
            ))}
          </Group>
        )}
      </Stack>
    </Paper>
  );
}

/** Preview links of an object: make one, open or copy it, revoke it (all need `objects:publish`). */
export function PreviewLinks({ object }: { object: DataObject }) {
  const client = useQueryClient();
  const key = [...keys.object(object.id), 'preview-links'];
  const [days, setDays] = useState<number>(7);
  const links = useQuery({
    queryKey: key,
    queryFn: async () =>
      unwrap<unknown>(
        await api.GET('/data-objects/{id}/preview-links', { params: { path: { id: object.id } } }),
      ) as PreviewLink[],
  });
  const create = async () => {
    try {
      unwrap<unknown>(
        await api.POST('/data-objects/{id}/preview-link', {
          params: { path: { id: object.id } },
          body: { expiresInDays: days },
        }),
      );
      showSaved('Preview link made');
      await client.invalidateQueries({ queryKey: key });
    } catch (err) {
      showSaveError(err);
    }
  };
  const revoke = async (link: PreviewLink) => {
    const permanent = link.state !== 'active';
    const ok = await confirmDestructive({
      title: permanent ? 'Remove this preview link?' : 'Revoke this preview link?',
      removes: permanent
        ? `the ${link.state} link and its view count (${link.viewCount} views).`
        : `access through this link: whoever holds it gets “not found” from now on (${link.viewCount} views so far).`,
      confirmLabel: permanent ? 'Remove' : 'Revoke',
    });
    if (!ok) return;
    try {
      unwrap<unknown>(
        await api.DELETE('/data-objects/preview-links/{token}', {
          params: { path: { token: link.token }, query: permanent ? { permanent: true } : {} },
        }),
      );
      await client.invalidateQueries({ queryKey: key });
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <Paper withBorder p="md">
      <Title order={2} size="h4" mb="xs">
        Preview links
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        A link shows this object, published or not, to anyone who has it, until it expires or is revoked.
      </Text>
      <Group align="flex-end" mb="sm">
        <NumberInput
          label="Valid for (days)"
          min={1}
          max={365}
          value={days}
          onChange={(v) => setDays(typeof v === 'number' ? v : 7)}
          w={140}
        />
        <Button onClick={create}>Make a preview link</Button>
      </Group>
      {links.isPending ? (
        <LoadingState label="Loading the preview links" />
      ) : links.error ? (
        <ErrorState error={links.error} onRetry={() => links.refetch()} />
      ) : links.data.length === 0 ? (
        <Text size="sm">No preview links yet.</Text>
      ) : (
        <Table.ScrollContainer minWidth={420}>
          <Table aria-label="Preview links">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Link</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Views</Table.Th>
                <Table.Th>Expires</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {links.data.map((l) => (
                <Table.Tr key={l.token}>
                  <Table.Td>
                    {l.state === 'active' ? (
                      <Group gap={6} wrap="nowrap">
                        <Anchor href={l.url} target="_blank" rel="noreferrer">
                          Open preview
                        </Anchor>
                        <CopyButton value={new URL(l.url, window.location.origin).href}>
                          {({ copied, copy }) => (
                            <Button size="compact-xs" variant="subtle" onClick={copy}>
                              {copied ? 'Copied' : 'Copy link'}
                            </Button>
                          )}
                        </CopyButton>
                      </Group>
                    ) : (
                      <Text size="sm" c="dimmed">
                        {l.token.slice(0, 8)}…
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>{l.state}</Table.Td>
                  <Table.Td>{l.viewCount}</Table.Td>
                  <Table.Td>{l.expiresAt ? new Date(l.expiresAt).toLocaleDateString('en-GB') : ''}</Table.Td>
                  <Table.Td>
                    <Button size="compact-xs" variant="subtle" color="red" onClick={() => revoke(l)}>
                      {l.state === 'active' ? 'Revoke' : 'Remove'}
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Paper>
  );
}
