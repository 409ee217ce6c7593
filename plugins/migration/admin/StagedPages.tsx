import { Alert, Button, Checkbox, Group, List, Stack, Table } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import {
  api,
  EmptyState,
  QueryState,
  Section,
  showSaveError,
  unwrap,
  useCan,
  useRemoveRecord,
} from '../../admin-ui/app/src/sdk/index.ts';
import { isStagedFrom, type Source, STAGED_KEY, type StagedPage } from './model.ts';
import { ScrollTable } from './ScrollTable.tsx';
import { StagedCompare } from './StagedCompare.tsx';

function Rows(props: { source: Source; pages: StagedPage[] }) {
  const can = useCan();
  const client = useQueryClient();
  const [selected, setSelected] = useState<string[]>([]);
  const [comparing, setComparing] = useState<StagedPage>();
  const promote = useMutation({
    mutationFn: async (ids: string[] | 'all') =>
      unwrap(
        await api.POST('/migration-sources/{id}/promote-documents', {
          params: { path: { id: props.source.id } },
          body: ids === 'all' ? { all: true } : { ids },
        }),
      ),
    onSuccess: async () => {
      setSelected([]);
      await client.invalidateQueries({ queryKey: STAGED_KEY });
    },
    onError: (err) => showSaveError(err),
  });
  const discard = useRemoveRecord<StagedPage>({
    confirm: (p) => ({
      title: `Discard the staged page ${p.path}?`,
      removes: `the staged page ${p.path} (${p.locale}); the page at that path, if any, stays as it is.`,
      confirmLabel: 'Discard staged page',
    }),
    run: async (p) => unwrap(await api.DELETE('/cms-one/pages/staged/{id}', { params: { path: { id: p.id } } })),
    saved: (p) => `Staged page ${p.path} discarded`,
    invalidate: STAGED_KEY,
  });
  const mayPromote = can('pages:edit');
  const toggle = (id: string, on: boolean) => setSelected((s) => (on ? [...s, id] : s.filter((x) => x !== id)));
  return (
    <Stack>
      {promote.data && (
        <Alert color="green" title="Promoted" role="status">
          <List size="sm" aria-label="Promoted pages">
            {promote.data.promoted.map((p) => (
              <List.Item key={p.id}>{p.path}</List.Item>
            ))}
          </List>
        </Alert>
      )}
      {props.pages.length === 0 ? (
        <EmptyState title="No staged pages of this source">
          Import documents with staging to review them here.
        </EmptyState>
      ) : (
        <>
          {mayPromote && (
            <Group>
              <Button
                disabled={selected.length === 0}
                loading={promote.isPending && promote.variables !== 'all'}
                onClick={() => promote.mutate(selected)}
              >
                Promote selected ({selected.length})
              </Button>
              <Button
                variant="light"
                loading={promote.isPending && promote.variables === 'all'}
                onClick={() => promote.mutate('all')}
              >
                Promote all
              </Button>
            </Group>
          )}
          <ScrollTable label="Staged pages" minWidth={560}>
            <Table.Thead>
              <Table.Tr>
                {mayPromote && <Table.Th>Select</Table.Th>}
                <Table.Th>Path</Table.Th>
                <Table.Th>Locale</Table.Th>
                <Table.Th>Title</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {props.pages.map((p) => (
                <Table.Tr key={p.id}>
                  {mayPromote && (
                    <Table.Td>
                      <Checkbox
                        aria-label={`Select ${p.path}`}
                        checked={selected.includes(p.id)}
                        onChange={(e) => toggle(p.id, e.currentTarget.checked)}
                      />
                    </Table.Td>
                  )}
                  <Table.Td>
                    <code>{p.path}</code>
                  </Table.Td>
                  <Table.Td>{p.locale}</Table.Td>
                  <Table.Td>{p.title}</Table.Td>
                  <Table.Td>
                    <Group gap={4} wrap="nowrap">
                      <Button
                        size="compact-sm"
                        variant="subtle"
                        aria-label={`Compare ${p.path}`}
                        onClick={() => setComparing(p)}
                      >
                        Compare
                      </Button>
                      {can('pages:delete') && (
                        <Button
                          size="compact-sm"
                          color="red"
                          variant="subtle"
                          aria-label={`Discard ${p.path}`}
                          onClick={() => void discard(p)}
                        >
                          Discard
                        </Button>
                      )}
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </ScrollTable>
        </>
      )}
      <StagedCompare page={comparing} onClose={() => setComparing(undefined)} />
    </Stack>
  );
}

/** The staged pages this source's imports wrote into a website: review, compare, promote or discard. */
export function StagedPages(props: { source: Source; websiteId: string }) {
  const query = useQuery({
    queryKey: [...STAGED_KEY, props.websiteId],
    queryFn: async () =>
      unwrap(
        await api.GET('/cms-one/pages/staged', {
          params: { query: { websiteId: props.websiteId, limit: 1000, offset: 0 } },
        }),
      ).filter((p) => isStagedFrom(props.source.id, p)),
  });
  return (
    <Section title="Staged pages">
      <QueryState query={query}>{(pages) => <Rows source={props.source} pages={pages} />}</QueryState>
    </Section>
  );
}
