import { Badge, Select, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQueryClient } from '@tanstack/react-query';
import { api, CreateDialog, CreateForm, PageHeader, unwrap, useCan } from '../../admin-ui/app/src/sdk/index.ts';
import { allSnippets, allWebsites, editorUrl, keys, type Snippet, useWebsites } from './content-api.ts';
import { changedColumn, editorColumn, linkColumn, RecordList } from './RecordList.tsx';

const snippetUrl = (s: Pick<Snippet, 'id'>) => `/admin/snippets/${s.id}`;

function NewSnippet({ onClose }: { onClose: () => void }) {
  const websites = useWebsites();
  const form = useForm({
    initialValues: { name: '', websiteId: '' },
    validate: { name: (v) => (v.trim() ? null : 'Name the snippet') },
  });
  return (
    <CreateForm
      form={form}
      create={async (v) =>
        unwrap(await api.POST('/cms-one/snippets', { body: { name: v.name.trim(), websiteId: v.websiteId || null } }))
      }
      saved={(snippet) => `Snippet ${snippet.name} created`}
      invalidate={keys.snippets}
      goTo={snippetUrl}
      submitLabel="Create snippet"
      onClose={onClose}
    >
      <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
      <Select
        label="Website"
        description="Empty: shared by every website"
        data={(websites.data ?? []).map((w) => ({ value: w.id, label: w.name }))}
        clearable
        {...form.getInputProps('websiteId')}
      />
    </CreateForm>
  );
}

/** `/admin/snippets`: reusable blocks of content, filtered and sorted in the URL. */
export default function SnippetList() {
  const can = useCan();
  const client = useQueryClient();
  const websites = useWebsites();
  const canEdit = can('snippets:edit');
  return (
    <>
      <PageHeader
        title="Snippets"
        description="Reusable blocks of content (headers, teasers, e-mail parts), edited in the visual editor."
        actions={
          canEdit && <CreateDialog label="New snippet">{(close) => <NewSnippet onClose={close} />}</CreateDialog>
        }
      />
      <RecordList<Snippet, Snippet & { website: string }>
        label="Snippets"
        records={{ key: keys.snippets, load: allSnippets }}
        rows={async (snippets) => {
          const sites = await client.ensureQueryData({ queryKey: keys.websites, queryFn: allWebsites });
          const names = new Map(sites.map((s) => [s.id, s.name]));
          return snippets.map((s) => ({ ...s, website: s.websiteId ? (names.get(s.websiteId) ?? '—') : 'All' }));
        }}
        search={['name']}
        open={snippetUrl}
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
        empty="No snippets match"
        columns={[
          linkColumn<Snippet>('name', 'Name', snippetUrl),
          { accessor: 'website', title: 'Website', sortable: true },
          {
            accessor: 'locked',
            title: 'Lock',
            sortable: true,
            render: (s) => (s.locked ? <Badge variant="light">Locked</Badge> : 'Unlocked'),
          },
          changedColumn(),
          editorColumn(
            canEdit,
            (s) => editorUrl.snippet(s.id),
            (s) => s.name,
          ),
        ]}
      />
    </>
  );
}
