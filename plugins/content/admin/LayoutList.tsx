import { Anchor, Badge, Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import {
  api,
  ListPage,
  pageInBrowser,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { editorUrl, keys, type Layout, shortDate, type Website } from './content-api.ts';
import { WebsiteFrame } from './WebsiteFrame.tsx';

const layoutUrl = (l: Pick<Layout, 'websiteId' | 'id'>) => `/admin/websites/${l.websiteId}/layouts/${l.id}`;

function NewLayout({ site, onClose }: { site: Website; onClose: () => void }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const form = useForm({
    initialValues: { name: '' },
    validate: { name: (v) => (v.trim() ? null : 'Name the layout') },
  });
  return (
    <form
      onSubmit={form.onSubmit(async (v) => {
        try {
          const layout = unwrap(
            await api.POST('/cms-one/websites/{websiteId}/templates', {
              params: { path: { websiteId: site.id } },
              body: { name: v.name.trim() },
            }),
          );
          showSaved(`Layout ${layout.name} created`);
          await client.invalidateQueries({ queryKey: keys.layouts(site.id) });
          onClose();
          await navigate(layoutUrl(layout));
        } catch (err) {
          showSaveError(err, form);
        }
      })}
    >
      <Stack>
        <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={form.submitting}>
            Create layout
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

async function fetchLayouts(websiteId: string) {
  return unwrap(await api.GET('/cms-one/websites/{websiteId}/templates', { params: { path: { websiteId } } }));
}

/** `/admin/websites/:id/layouts`: the header, aside, footer and 404 compositions of a website's pages. */
export default function LayoutList() {
  const can = useCan();
  const client = useQueryClient();
  const navigate = useNavigate();
  const [creating, { open, close }] = useDisclosure();
  return (
    <WebsiteFrame
      section="Layouts"
      actions={() =>
        can('websites:edit') && (
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={open}>
            New layout
          </Button>
        )
      }
    >
      {(site) => (
        <>
          <ListPage<Layout & { patterns: string }>
            label="Layout templates"
            queryKey={[...keys.layouts(site.id), 'list']}
            rowKey="id"
            defaultSort={{ column: 'name', direction: 'asc' }}
            filters={[{ name: 'q', label: 'Name or path pattern', type: 'text' }]}
            empty={{ title: 'No layouts match' }}
            fetchPage={async (q) => {
              const layouts = await client.fetchQuery({
                queryKey: keys.layouts(site.id),
                queryFn: () => fetchLayouts(site.id),
                staleTime: 5_000,
              });
              const rows = layouts.map((l) => ({ ...l, patterns: l.pathPatterns.join(', ') }));
              return pageInBrowser(rows, q, { text: ['name', 'patterns'] });
            }}
            onRowClick={(l) => navigate(layoutUrl(l))}
            columns={[
              {
                accessor: 'name',
                title: 'Name',
                sortable: true,
                render: (l) => (
                  <Group gap="xs">
                    <Link to={layoutUrl(l)} onClick={(e) => e.stopPropagation()}>
                      {l.name}
                    </Link>
                    {l.isDefault && <Badge variant="light">Default</Badge>}
                  </Group>
                ),
              },
              { accessor: 'patterns', title: 'Path patterns', render: (l) => l.patterns || '—' },
              { accessor: 'locale', title: 'Language', sortable: true, render: (l) => l.locale ?? 'Every language' },
              { accessor: 'updatedAt', title: 'Changed', sortable: true, render: (l) => shortDate(l.updatedAt) },
              {
                accessor: 'editor',
                title: '',
                render: (l) =>
                  can('websites:edit') && (
                    <Anchor
                      href={editorUrl.layout(site.id, l.id)}
                      aria-label={`Open in editor: ${l.name}`}
                      onClick={(e) => e.stopPropagation()}
                    >
                      Open in editor
                    </Anchor>
                  ),
              },
            ]}
          />
          <Modal opened={creating} onClose={close} title="New layout">
            <NewLayout site={site} onClose={close} />
          </Modal>
        </>
      )}
    </WebsiteFrame>
  );
}
