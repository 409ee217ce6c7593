import { Anchor, Badge, Button, Group, Modal, Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import {
  api,
  ListPage,
  PageHeader,
  pageInBrowser,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { editorUrl, keys, LIST_MAX, shortDate, type Snippet, useWebsites } from './content-api.ts';

type Row = Snippet & { website: string };

function NewSnippet({ onClose }: { onClose: () => void }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const websites = useWebsites();
  const form = useForm({
    initialValues: { name: '', websiteId: '' },
    validate: { name: (v) => (v.trim() ? null : 'Name the snippet') },
  });
  return (
    <form
      onSubmit={form.onSubmit(async (v) => {
        try {
          const snippet = unwrap(
            await api.POST('/cms-one/snippets', { body: { name: v.name.trim(), websiteId: v.websiteId || null } }),
          );
          showSaved(`Snippet ${snippet.name} created`);
          await client.invalidateQueries({ queryKey: keys.snippets });
          onClose();
          await navigate(`/admin/snippets/${snippet.id}`);
        } catch (err) {
          showSaveError(err, form);
        }
      })}
    >
      <Stack>
        <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
        <Select
          label="Website"
          description="Empty: shared by every website"
          data={(websites.data ?? []).map((w) => ({ value: w.id, label: w.name }))}
          clearable
          {...form.getInputProps('websiteId')}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={form.submitting}>
            Create snippet
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** `/admin/snippets`: reusable blocks of content, filtered and sorted in the URL. */
export default function SnippetList() {
  const can = useCan();
  const client = useQueryClient();
  const navigate = useNavigate();
  const websites = useWebsites();
  const [creating, { open, close }] = useDisclosure();
  const canEdit = can('snippets:edit');
  return (
    <>
      <PageHeader
        title="Snippets"
        description="Reusable blocks of content (headers, teasers, e-mail parts), edited in the visual editor."
        actions={
          canEdit && (
            <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={open}>
              New snippet
            </Button>
          )
        }
      />
      <ListPage<Row>
        label="Snippets"
        queryKey={[...keys.snippets, 'list']}
        rowKey="id"
        defaultSort={{ column: 'name', direction: 'asc' }}
        filters={[
          { name: 'q', label: 'Name', type: 'text', placeholder: 'header' },
          {
            name: 'websiteId',
            label: 'Website',
            type: 'select',
            options: (websites.data ?? []).map((w) => ({ value: w.id, label: w.name })),
          },
          {
            name: 'locked',
            label: 'Lock',
            type: 'select',
            options: [
              { value: 'yes', label: 'Locked' },
              { value: 'no', label: 'Unlocked' },
            ],
          },
        ]}
        empty={{ title: 'No snippets match' }}
        fetchPage={async (q) => {
          const [snippets, sites] = await Promise.all([
            client.fetchQuery({
              queryKey: keys.snippets,
              staleTime: 5_000,
              queryFn: async () =>
                unwrap(await api.GET('/cms-one/snippets', { params: { query: { limit: LIST_MAX, offset: 0 } } })),
            }),
            client.ensureQueryData({
              queryKey: keys.websites,
              queryFn: async () =>
                unwrap<unknown>(await api.GET('/cms-one/websites')) as { id: string; name: string }[],
            }),
          ]);
          const names = new Map(sites.map((s) => [s.id, s.name]));
          const rows = snippets.map((s) => ({ ...s, website: s.websiteId ? (names.get(s.websiteId) ?? '—') : 'All' }));
          return pageInBrowser(rows, q, { text: ['name'] });
        }}
        onRowClick={(s) => navigate(`/admin/snippets/${s.id}`)}
        columns={[
          {
            accessor: 'name',
            title: 'Name',
            sortable: true,
            render: (s) => (
              <Link to={`/admin/snippets/${s.id}`} onClick={(e) => e.stopPropagation()}>
                {s.name}
              </Link>
            ),
          },
          { accessor: 'website', title: 'Website', sortable: true },
          {
            accessor: 'locked',
            title: 'Lock',
            sortable: true,
            render: (s) => (s.locked ? <Badge variant="light">Locked</Badge> : 'Unlocked'),
          },
          { accessor: 'updatedAt', title: 'Changed', sortable: true, render: (s) => shortDate(s.updatedAt) },
          {
            accessor: 'editor',
            title: '',
            render: (s) =>
              canEdit && (
                <Anchor
                  href={editorUrl.snippet(s.id)}
                  aria-label={`Open in editor: ${s.name}`}
                  onClick={(e) => e.stopPropagation()}
                >
                  Open in editor
                </Anchor>
              ),
          },
        ]}
      />
      <Modal opened={creating} onClose={close} title="New snippet">
        <NewSnippet onClose={close} />
      </Modal>
    </>
  );
}
