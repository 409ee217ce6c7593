import {
  Anchor,
  Badge,
  Button,
  Code,
  Group,
  Paper,
  ScrollArea,
  Select,
  Stack,
  Switch,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import {
  api,
  confirmDestructive,
  EmptyState,
  PageHeader,
  QueryState,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { ContentDraft } from './ContentDraft.tsx';
import { editorUrl, keys, shortDate, type Snippet, useWebsites } from './content-api.ts';
import { treeText } from './tree-input.tsx';
import { NameField, TreeDocumentForm } from './TreeDocumentForm.tsx';

function SnippetForm({ snippet, canEdit }: { snippet: Snippet; canEdit: boolean }) {
  const client = useQueryClient();
  const websites = useWebsites();
  return (
    <TreeDocumentForm
      record={snippet}
      what="snippet"
      canEdit={canEdit}
      valuesOf={(s: Snippet) => ({ name: s.name, websiteId: s.websiteId ?? '', content: treeText(s.content) })}
      check={(v) => (v.name.trim() ? {} : { name: 'Name the snippet' })}
      trees={[
        {
          name: 'content',
          label: 'Content (node tree)',
          description:
            'The tree the visual editor edits: { type, props, text, children }. Saving keeps the previous content as a version.',
        },
      ]}
      write={(v, trees, ifMatch) =>
        api.PATCH('/cms-one/snippets/{id}', {
          params: { path: { id: snippet.id }, header: { 'if-match': ifMatch } },
          body: { name: v.name.trim(), websiteId: v.websiteId || null, content: trees.content },
        })
      }
      read={() => api.GET('/cms-one/snippets/{id}', { params: { path: { id: snippet.id } } })}
      store={(s) => client.setQueryData(keys.snippet(snippet.id), s)}
      onSaved={() => client.invalidateQueries({ queryKey: keys.snippets, exact: true })}
      fields={({ values, set, errors, readOnly }) => (
        <Group grow preventGrowOverflow={false} align="flex-start" wrap="wrap">
          <NameField values={values} set={set} errors={errors} readOnly={readOnly} />
          <Select
            label="Website"
            description="Empty: shared by every website"
            data={(websites.data ?? []).map((w) => ({ value: w.id, label: w.name }))}
            value={values.websiteId || null}
            onChange={(v) => set('websiteId', v ?? '')}
            error={errors.websiteId}
            clearable
            readOnly={readOnly}
            miw={220}
          />
        </Group>
      )}
    />
  );
}

/**
 * The snippet as standalone e-mail HTML (`POST /cms-one/snippets/:id/render`): its source, and a way to
 * see it rendered in a tab of its own (a blob document: it inherits this page's policy, no script runs).
 */
function Preview({ snippet }: { snippet: Snippet }) {
  const html = useQuery({
    queryKey: [...keys.snippet(snippet.id), 'html', snippet.updatedAt],
    queryFn: async () =>
      (
        unwrap<unknown>(await api.POST('/cms-one/snippets/{id}/render', { params: { path: { id: snippet.id } } })) as {
          html: string;
        }
      ).html,
  });
  const open = (h: string) => {
    const url = URL.createObjectURL(new Blob([h], { type: 'text/html' }));
    window.open(url, '_blank', 'noopener');
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  };
  return (
    <QueryState query={html}>
      {(h) => (
        <Stack gap="xs" align="flex-start">
          <ScrollArea.Autosize
            mah={320}
            w="100%"
            viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': `HTML of ${snippet.name}` }}
          >
            <Code block>{h}</Code>
          </ScrollArea.Autosize>
          <Button variant="light" size="compact-sm" onClick={() => open(h)}>
            Open it rendered in a new tab
          </Button>
        </Stack>
      )}
    </QueryState>
  );
}

function Versions({ snippet }: { snippet: Snippet }) {
  const versions = useQuery({
    queryKey: [...keys.snippet(snippet.id), 'versions', snippet.updatedAt],
    queryFn: async () =>
      unwrap(await api.GET('/cms-one/snippets/{id}/versions', { params: { path: { id: snippet.id } } })),
  });
  return (
    <QueryState query={versions}>
      {(list) =>
        list.length === 0 ? (
          <EmptyState title="No earlier versions">
            Each save that changes the content keeps the previous one.
          </EmptyState>
        ) : (
          <Table striped aria-label="Versions">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Saved</Table.Th>
                <Table.Th>Name then</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((v) => (
                <Table.Tr key={v.id}>
                  <Table.Td>{shortDate(v.createdAt)}</Table.Td>
                  <Table.Td>{v.title ?? '—'}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )
      }
    </QueryState>
  );
}

function SnippetScreen({ snippet }: { snippet: Snippet }) {
  const can = useCan();
  const client = useQueryClient();
  const navigate = useNavigate();
  const canEdit = can('snippets:edit');
  const lock = useMutation({
    mutationFn: async (locked: boolean) =>
      unwrap<unknown>(
        await api.PUT('/cms-one/snippets/{id}/lock', { params: { path: { id: snippet.id } }, body: { locked } }),
      ) as { locked: boolean },
    onSuccess: async ({ locked }) => {
      client.setQueryData(keys.snippet(snippet.id), { ...snippet, locked });
      // The lock is a write: the snippet's tag moved. The stored snippet brings it (the form follows it
      // when its own fields are as loaded; a change made elsewhere meanwhile still refuses its save).
      await client.invalidateQueries({ queryKey: keys.snippet(snippet.id), exact: true });
      showSaved(locked ? `${snippet.name} locked` : `${snippet.name} unlocked`);
      await client.invalidateQueries({ queryKey: keys.snippets });
    },
    onError: (err) => showSaveError(err),
  });
  const remove = async () => {
    const ok = await confirmDestructive({
      title: `Delete the snippet ${snippet.name}?`,
      removes: `the snippet ${snippet.name} with its content, thumbnail and version history.`,
      confirmLabel: 'Delete the snippet',
    });
    if (!ok) return;
    try {
      unwrap(await api.DELETE('/cms-one/snippets/{id}', { params: { path: { id: snippet.id } } }));
      showSaved(`${snippet.name} deleted`);
      client.removeQueries({ queryKey: keys.snippet(snippet.id) });
      await client.invalidateQueries({ queryKey: keys.snippets });
      await navigate('/admin/snippets');
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <>
      <PageHeader
        title={snippet.name}
        description={
          <>
            {snippet.locked && (
              <Badge variant="light" mr="xs">
                Locked
              </Badge>
            )}
            Changed {shortDate(snippet.updatedAt)} ·{' '}
            <Anchor underline="always" component={Link} to="/admin/snippets">
              All snippets
            </Anchor>
          </>
        }
        actions={
          canEdit && (
            <Button component="a" href={editorUrl.snippet(snippet.id)} variant="light">
              Open in editor
            </Button>
          )
        }
      />
      <Stack gap="lg">
        <Paper withBorder p="md">
          <Switch
            label="Locked"
            description="While locked the editor's autosave is refused; saving by hand still works"
            checked={snippet.locked}
            disabled={!canEdit || lock.isPending}
            onChange={(e) => lock.mutate(e.currentTarget.checked)}
          />
        </Paper>
        <ContentDraft
          owner={{ ownerType: 'snippet', id: snippet.id }}
          draft={snippet.draft}
          canEdit={canEdit}
          onDone={() => client.invalidateQueries({ queryKey: keys.snippet(snippet.id) })}
        />
        <Paper withBorder p="md">
          {/* A publish or a discard changes what the form starts from: it starts again. */}
          <SnippetForm key={`${snippet.id}:${snippet.draft ? 'draft' : 'live'}`} snippet={snippet} canEdit={canEdit} />
        </Paper>
        <Paper withBorder p="md">
          <Title order={2} size="h4" mb="sm">
            E-mail HTML
          </Title>
          <Preview snippet={snippet} />
        </Paper>
        <Paper withBorder p="md">
          <Title order={2} size="h4" mb="sm">
            Versions
          </Title>
          <Versions snippet={snippet} />
        </Paper>
        {can('snippets:delete') && (
          <Paper withBorder p="md" style={{ borderColor: 'var(--mantine-color-red-4)' }}>
            <Title order={2} size="h4" mb="xs">
              Delete the snippet
            </Title>
            <Text size="sm" mb="sm">
              Removes the snippet and its history.
            </Text>
            <Button color="red" onClick={remove}>
              Delete the snippet
            </Button>
          </Paper>
        )}
      </Stack>
    </>
  );
}

/** `/admin/snippets/:id`: a snippet's name, website, content, lock, preview and history. */
export default function SnippetEdit() {
  const { id = '' } = useParams();
  const snippet = useQuery({
    queryKey: keys.snippet(id),
    queryFn: async () => unwrap(await api.GET('/cms-one/snippets/{id}', { params: { path: { id } } })),
  });
  return <QueryState query={snippet}>{(s) => <SnippetScreen snippet={s} />}</QueryState>;
}
