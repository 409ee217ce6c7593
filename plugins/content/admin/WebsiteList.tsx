import { Badge, Button, Group, TagsInput, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { Link, useNavigate } from 'react-router';
import {
  api,
  CreateDialog,
  CreateForm,
  ListPage,
  PageHeader,
  pageInBrowser,
  PathInput,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { allWebsites, keys, type Website } from './content-api.ts';
import { linkColumn } from './RecordList.tsx';

const websiteUrl = (w: Pick<Website, 'id'>) => `/admin/websites/${w.id}`;

function NewWebsite({ onClose }: { onClose: () => void }) {
  const form = useForm({
    initialValues: { name: '', rootPath: '/', locales: ['en'] },
    validate: { name: (v) => (v.trim() ? null : 'Name the website') },
  });
  return (
    <CreateForm
      form={form}
      create={async (v) =>
        unwrap(
          await api.POST('/cms-one/websites', {
            body: { name: v.name.trim(), rootPath: v.rootPath.trim(), locales: v.locales },
          }),
        )
      }
      saved={(site) => `Website ${site.name} created`}
      invalidate={keys.websites}
      goTo={websiteUrl}
      submitLabel="Create website"
      onClose={onClose}
    >
      <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
      <PathInput
        label="Root path"
        description="The first path segment its pages live under, e.g. /shop"
        required
        {...form.getInputProps('rootPath')}
      />
      <TagsInput label="Languages" description="Locale codes, e.g. en, de-CH" {...form.getInputProps('locales')} />
    </CreateForm>
  );
}

/** `/admin/websites`: the installation's websites, their root path, languages and domains. */
export default function WebsiteList() {
  const can = useCan();
  const navigate = useNavigate();
  return (
    <>
      <PageHeader
        title="Websites"
        description="Each website has a root path (its pages' first segment), languages and domains."
        actions={
          <>
            {/* The ai plugin's screen (a link, not an import): a website proposed from a brief, edited, created. */}
            {can('ai:use') && can('objects:write') && (
              <Button component={Link} to="/admin/ai/website" variant="default">
                New website from a brief
              </Button>
            )}
            {can('websites:edit') && (
              <CreateDialog label="New website">{(close) => <NewWebsite onClose={close} />}</CreateDialog>
            )}
          </>
        }
      />
      {/* Not a `RecordList`: each visit asks for the websites, none are kept for a few seconds. */}
      <ListPage<Website & { domainList: string }>
        label="Websites"
        queryKey={keys.websites}
        rowKey="id"
        pageSize={100}
        empty={{ title: 'No websites match' }}
        defaultSort={{ column: 'name', direction: 'asc' }}
        filters={[{ name: 'q', label: 'Name, root path or domain', type: 'text' }]}
        fetchPage={async (q) => {
          const rows = (await allWebsites()).map((w) => ({ ...w, domainList: w.domains.join(', ') }));
          return pageInBrowser(rows, q, { text: ['name', 'rootPath', 'domainList'] });
        }}
        onRowClick={(w) => navigate(websiteUrl(w))}
        columns={[
          linkColumn<Website>('name', 'Name', websiteUrl),
          { accessor: 'rootPath', title: 'Root path', sortable: true },
          {
            accessor: 'locales',
            title: 'Languages',
            render: (w) => (
              <Group gap={4}>
                {w.locales.map((l) => (
                  <Badge key={l} variant="light">
                    {l}
                  </Badge>
                ))}
              </Group>
            ),
          },
          { accessor: 'domainList', title: 'Domains', render: (w) => w.domainList || '—' },
          {
            accessor: 'sections',
            title: '',
            render: (w) => (
              <Link
                to={`/admin/websites/${w.id}/pages`}
                aria-label={`Pages of ${w.name}`}
                onClick={(e) => e.stopPropagation()}
              >
                Pages
              </Link>
            ),
          },
        ]}
      />
    </>
  );
}
