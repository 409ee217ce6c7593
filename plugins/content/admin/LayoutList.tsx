import { Badge, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { api, CreateDialog, CreateForm, unwrap, useCan } from '../../admin-ui/app/src/sdk/index.ts';
import { editorUrl, keys, type Layout, layoutsOf, type Website } from './content-api.ts';
import { changedColumn, editorColumn, linkColumn, RecordList } from './RecordList.tsx';
import { WebsiteFrame } from './WebsiteFrame.tsx';

const layoutUrl = (l: Pick<Layout, 'websiteId' | 'id'>) => `/admin/websites/${l.websiteId}/layouts/${l.id}`;

function NewLayout({ site, onClose }: { site: Website; onClose: () => void }) {
  const form = useForm({
    initialValues: { name: '' },
    validate: { name: (v) => (v.trim() ? null : 'Name the layout') },
  });
  return (
    <CreateForm
      form={form}
      create={async (v) =>
        unwrap(
          await api.POST('/cms-one/websites/{websiteId}/templates', {
            params: { path: { websiteId: site.id } },
            body: { name: v.name.trim() },
          }),
        )
      }
      saved={(layout) => `Layout ${layout.name} created`}
      invalidate={keys.layouts(site.id)}
      goTo={layoutUrl}
      submitLabel="Create layout"
      onClose={onClose}
    >
      <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
    </CreateForm>
  );
}

/** `/admin/websites/:id/layouts`: the header, aside, footer and 404 compositions of a website's pages. */
export default function LayoutList() {
  const can = useCan();
  const canEdit = can('websites:edit');
  return (
    <WebsiteFrame
      section="Layouts"
      actions={(site) =>
        canEdit && (
          <CreateDialog label="New layout">{(close) => <NewLayout site={site} onClose={close} />}</CreateDialog>
        )
      }
    >
      {(site) => (
        <RecordList<Layout, Layout & { patterns: string }>
          label="Layout templates"
          records={{ key: keys.layouts(site.id), load: () => layoutsOf(site.id) }}
          rows={(layouts) => layouts.map((l) => ({ ...l, patterns: l.pathPatterns.join(', ') }))}
          search={['name', 'patterns']}
          open={layoutUrl}
          filters={[{ name: 'q', label: 'Name or path pattern', type: 'text' }]}
          empty="No layouts match"
          columns={[
            linkColumn<Layout>('name', 'Name', layoutUrl, (l) => l.isDefault && <Badge variant="light">Default</Badge>),
            { accessor: 'patterns', title: 'Path patterns', render: (l) => l.patterns || '—' },
            { accessor: 'locale', title: 'Language', sortable: true, render: (l) => l.locale ?? 'Every language' },
            changedColumn(),
            editorColumn(
              canEdit,
              (l) => editorUrl.layout(site.id, l.id),
              (l) => l.name,
            ),
          ]}
        />
      )}
    </WebsiteFrame>
  );
}
