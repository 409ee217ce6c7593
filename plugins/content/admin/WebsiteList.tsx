import { Badge, Button, Group, Modal, Stack, TagsInput, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { IconPlus } from '@tabler/icons-react';
import {
  api,
  ListPage,
  PageHeader,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';

/** A website as GET /cms-one/websites lists it (the route declares no answer schema yet). */
type Website = { id: string; name: string; rootPath: string; locales: string[]; domains: string[]; kind: string };

const KEY = ['content', 'websites'] as const;

function NewWebsite({ onClose }: { onClose: () => void }) {
  const client = useQueryClient();
  const form = useForm({
    initialValues: { name: '', rootPath: '/', locales: ['en'] },
    validate: { name: (v) => (v.trim() ? null : 'Name the website') },
  });
  return (
    <form
      onSubmit={form.onSubmit(async (v) => {
        try {
          unwrap(
            await api.POST('/cms-one/websites', {
              body: { name: v.name.trim(), rootPath: v.rootPath.trim(), locales: v.locales },
            }),
          );
          showSaved(`Website ${v.name.trim()} created`);
          await client.invalidateQueries({ queryKey: KEY });
          onClose();
        } catch (err) {
          showSaveError(err, form);
        }
      })}
    >
      <Stack>
        <TextInput label="Name" required {...form.getInputProps('name')} />
        <TextInput
          label="Root path"
          description="The first path segment its pages live under, e.g. /shop"
          required
          {...form.getInputProps('rootPath')}
        />
        <TagsInput label="Languages" description="Locale codes, e.g. en, de-CH" {...form.getInputProps('locales')} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={form.submitting}>
            Create website
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** `/admin/websites`: the installation's websites, their root path, languages and domains. */
export default function WebsiteList() {
  const can = useCan();
  const [creating, { open, close }] = useDisclosure();
  return (
    <>
      <PageHeader
        title="Websites"
        description="Each website has a root path (its pages' first segment), languages and domains."
        actions={
          can('websites:edit') && (
            <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={open}>
              New website
            </Button>
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
          const records = unwrap(await api.GET('/cms-one/websites')) as unknown as Website[];
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
      <Modal opened={creating} onClose={close} title="New website">
        <NewWebsite onClose={close} />
      </Modal>
    </>
  );
}
