import { Anchor, Badge, Button, Group, Modal, Select, Stack, TextInput } from '@mantine/core';
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
import { editorUrl, keys, type Page, pagesOf, shortDate, type Website } from './content-api.ts';
import { WebsiteFrame } from './WebsiteFrame.tsx';

function NewPage({ site, onClose }: { site: Website; onClose: () => void }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const form = useForm({
    initialValues: { title: '', path: '/', locale: site.locales[0] ?? 'en' },
    validate: {
      title: (v) => (v.trim() ? null : 'Give the page a title'),
      path: (v) => (v.startsWith('/') ? null : 'A path starts with /, e.g. /about'),
    },
  });
  return (
    <form
      onSubmit={form.onSubmit(async (v) => {
        try {
          const page = unwrap(
            await api.POST('/cms-one/pages', {
              body: { websiteId: site.id, title: v.title.trim(), path: v.path.trim(), locale: v.locale },
            }),
          );
          showSaved(`Page ${page.title} created`);
          await client.invalidateQueries({ queryKey: keys.pages(site.id) });
          onClose();
          await navigate(`/admin/pages/${page.id}`);
        } catch (err) {
          showSaveError(err, form);
        }
      })}
    >
      <Stack>
        <TextInput label="Title" required data-autofocus {...form.getInputProps('title')} />
        <TextInput
          label="Path"
          description={`Below the root path ${site.rootPath}, e.g. /about, or /blog/:slug for pages of a data class`}
          required
          {...form.getInputProps('path')}
        />
        <Select
          label="Language"
          data={site.locales}
          allowDeselect={false}
          comboboxProps={{ withinPortal: true }}
          {...form.getInputProps('locale')}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={form.submitting}>
            Create page
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function Pages({ site }: { site: Website }) {
  const can = useCan();
  const client = useQueryClient();
  const navigate = useNavigate();
  const canEdit = can('pages:edit');
  return (
    <ListPage<Page>
      label="Pages"
      queryKey={[...keys.pages(site.id), 'list']}
      rowKey="id"
      defaultSort={{ column: 'path', direction: 'asc' }}
      filters={[
        { name: 'q', label: 'Title or path', type: 'text', placeholder: 'about' },
        {
          name: 'locale',
          label: 'Language',
          type: 'select',
          options: site.locales.map((l) => ({ value: l, label: l })),
        },
        {
          name: 'published',
          label: 'Status',
          type: 'select',
          options: [
            { value: 'yes', label: 'Published' },
            { value: 'no', label: 'Drafts' },
          ],
        },
      ]}
      empty={{ title: 'No pages match' }}
      fetchPage={async (q) => {
        const pages = await client.fetchQuery({
          queryKey: keys.pages(site.id),
          queryFn: () => pagesOf(site.id),
          staleTime: 5_000,
        });
        return pageInBrowser(pages, q, { text: ['title', 'path'] });
      }}
      onRowClick={(p) => navigate(`/admin/pages/${p.id}`)}
      columns={[
        {
          accessor: 'title',
          title: 'Title',
          sortable: true,
          render: (p) => (
            <Link to={`/admin/pages/${p.id}`} onClick={(e) => e.stopPropagation()}>
              {p.title}
            </Link>
          ),
        },
        { accessor: 'path', title: 'Path', sortable: true },
        { accessor: 'locale', title: 'Language', sortable: true },
        {
          accessor: 'published',
          title: 'Status',
          sortable: true,
          render: (p) =>
            p.published ? (
              <Badge color="green" variant="light">
                Published
              </Badge>
            ) : (
              <Badge color="gray" variant="light">
                Draft
              </Badge>
            ),
        },
        { accessor: 'updatedAt', title: 'Changed', sortable: true, render: (p) => shortDate(p.updatedAt) },
        {
          accessor: 'editor',
          title: '',
          render: (p) =>
            canEdit && (
              <Anchor
                href={editorUrl.page(p.id)}
                aria-label={`Open in editor: ${p.title} (${p.locale})`}
                onClick={(e) => e.stopPropagation()}
              >
                Open in editor
              </Anchor>
            ),
        },
      ]}
    />
  );
}

/** `/admin/websites/:id/pages`: a website's pages, filtered and sorted in the URL. */
export default function PageList() {
  const can = useCan();
  const [creating, { open, close }] = useDisclosure();
  return (
    <WebsiteFrame
      section="Pages"
      actions={() =>
        can('pages:edit') && (
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={open}>
            New page
          </Button>
        )
      }
    >
      {(site) => (
        <>
          <Pages site={site} />
          <Modal opened={creating} onClose={close} title="New page">
            <NewPage site={site} onClose={close} />
          </Modal>
        </>
      )}
    </WebsiteFrame>
  );
}
