import { Badge, Group, TagsInput, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import {
  type ApiAnswer,
  api,
  CreateDialog,
  CreateForm,
  ListPage,
  PageHeader,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';

/** A website as `GET /cms-one/websites` lists it. */
type Website = ApiAnswer<'/cms-one/websites', 'get'>[number];

const KEY = ['content', 'websites'] as const;

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
      saved={(website) => `Website ${website.name} created`}
      invalidate={KEY}
      submitLabel="Create website"
      onClose={onClose}
    >
      <TextInput label="Name" required {...form.getInputProps('name')} />
      <TextInput
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
  return (
    <>
      <PageHeader
        title="Websites"
        description="Each website has a root path (its pages' first segment), languages and domains."
        actions={
          can('websites:edit') && (
            <CreateDialog label="New website">{(close) => <NewWebsite onClose={close} />}</CreateDialog>
          )
        }
      />
      <ListPage<Website>
        label="Websites"
        queryKey={KEY}
        rowKey="id"
        pageSize={100}
        empty={{ title: 'No website yet' }}
        fetchPage={async () => {
          const records = unwrap(await api.GET('/cms-one/websites'));
          return { records, total: records.length };
        }}
        columns={[
          { accessor: 'name', title: 'Name' },
          { accessor: 'rootPath', title: 'Root path' },
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
          { accessor: 'domains', title: 'Domains', render: (w) => w.domains.join(', ') || '—' },
        ]}
      />
    </>
  );
}
