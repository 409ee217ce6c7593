import { Badge, Button, Group, Modal, Stack, TagsInput, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { IconPlus } from '@tabler/icons-react';
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

import { keys, type Website } from './content-api.ts';

const KEY = keys.websites;

function NewWebsite({ onClose }: { onClose: () => void }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const form = useForm({
    initialValues: { name: '', rootPath: '/', locales: ['en'] },
    validate: { name: (v) => (v.trim() ? null : 'Name the website') },
  });
  return (
    <form
      onSubmit={form.onSubmit(async (v) => {
        try {
          const site = unwrap(
            await api.POST('/cms-one/websites', {
              body: { name: v.name.trim(), rootPath: v.rootPath.trim(), locales: v.locales },
            }),
          );
          showSaved(`Website ${site.name} created`);
          await client.invalidateQueries({ queryKey: KEY });
          onClose();
          await navigate(`/admin/websites/${site.id}`);
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
  const navigate = useNavigate();
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
      <ListPage<Website & { domainList: string }>
        label="Websites"
        queryKey={KEY}
        rowKey="id"
        pageSize={100}
        empty={{ title: 'No websites match' }}
        defaultSort={{ column: 'name', direction: 'asc' }}
        filters={[{ name: 'q', label: 'Name, root path or domain', type: 'text' }]}
        fetchPage={async (q) => {
          const sites = unwrap(await api.GET('/cms-one/websites'));
          const rows = sites.map((w) => ({ ...w, domainList: w.domains.join(', ') }));
          return pageInBrowser(rows, q, { text: ['name', 'rootPath', 'domainList'] });
        }}
        onRowClick={(w) => navigate(`/admin/websites/${w.id}`)}
        columns={[
          {
            accessor: 'name',
            title: 'Name',
            sortable: true,
            render: (w) => (
              <Link to={`/admin/websites/${w.id}`} onClick={(e) => e.stopPropagation()}>
                {w.name}
              </Link>
            ),
          },
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
      <Modal opened={creating} onClose={close} title="New website">
        <NewWebsite onClose={close} />
      </Modal>
    </>
  );
}
