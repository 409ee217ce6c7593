import { Badge, Button, Select, TextInput } from '@mantine/core';
import { Link } from 'react-router';
import { useForm } from '@mantine/form';
import { api, CreateDialog, CreateForm, PathInput, unwrap, useCan } from '../../admin-ui/app/src/sdk/index.ts';
import { editorUrl, keys, type Page, pagesOf, type Website } from './content-api.ts';
import { changedColumn, editorColumn, linkColumn, RecordList } from './RecordList.tsx';
import { WebsiteFrame } from './WebsiteFrame.tsx';

const pageUrl = (p: Pick<Page, 'id'>) => `/admin/pages/${p.id}`;

function NewPage({ site, onClose }: { site: Website; onClose: () => void }) {
  const form = useForm({
    initialValues: { title: '', path: '/', locale: site.locales[0] ?? 'en' },
    validate: {
      title: (v) => (v.trim() ? null : 'Give the page a title'),
      path: (v) => (v.startsWith('/') ? null : 'A path starts with /, e.g. /about'),
    },
  });
  return (
    <CreateForm
      form={form}
      create={async (v) =>
        unwrap(
          await api.POST('/cms-one/pages', {
            body: { websiteId: site.id, title: v.title.trim(), path: v.path.trim(), locale: v.locale },
          }),
        )
      }
      saved={(page) => `Page ${page.title} created`}
      invalidate={keys.pages(site.id)}
      goTo={pageUrl}
      submitLabel="Create page"
      onClose={onClose}
    >
      <TextInput label="Title" required data-autofocus {...form.getInputProps('title')} />
      <PathInput
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
    </CreateForm>
  );
}

function Pages({ site }: { site: Website }) {
  const can = useCan();
  return (
    <RecordList<Page>
      label="Pages"
      records={{ key: keys.pages(site.id), load: () => pagesOf(site.id) }}
      search={['title', 'path']}
      open={pageUrl}
      sortBy="path"
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
      empty="No pages match"
      columns={[
        linkColumn<Page>('title', 'Title', pageUrl),
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
        changedColumn(),
        editorColumn(
          can('pages:edit'),
          (p) => editorUrl.page(p.id),
          (p) => `${p.title} (${p.locale})`,
        ),
      ]}
    />
  );
}

/** `/admin/websites/:id/pages`: a website's pages, filtered and sorted in the URL. */
export default function PageList() {
  const can = useCan();
  return (
    <WebsiteFrame
      section="Pages"
      actions={(site) =>
        can('pages:edit') && (
          <>
            {/* The figma plugin's screen (a link, not an import): a Figma frame as a draft page of this website. */}
            <Button component={Link} to={`/admin/figma/import?websiteId=${site.id}`} variant="default">
              Import from Figma
            </Button>
            <CreateDialog label="New page">{(close) => <NewPage site={site} onClose={close} />}</CreateDialog>
          </>
        )
      }
    >
      {(site) => <Pages site={site} />}
    </WebsiteFrame>
  );
}
