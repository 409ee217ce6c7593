import { Badge, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useParams } from 'react-router';
import { api, CreateDialog, CreateForm, PageHeader, unwrap, useCan } from '../../admin-ui/app/src/sdk/index.ts';
import { keys, type Theme, themesOf } from './content-api.ts';
import { changedColumn, linkColumn, RecordList } from './RecordList.tsx';
import { WebsiteFrame } from './WebsiteFrame.tsx';

/** Where a theme's screen is: the global catalog's or a website's. */
export const themeUrl = (websiteId: string | null, id: string) =>
  websiteId ? `/admin/websites/${websiteId}/themes/${id}` : `/admin/themes/${id}`;

function NewTheme({ websiteId, onClose }: { websiteId: string | null; onClose: () => void }) {
  const form = useForm({
    initialValues: { name: '' },
    validate: { name: (v) => (v.trim() ? null : 'Name the theme') },
  });
  return (
    <CreateForm
      form={form}
      create={async (v) => {
        const body = { name: v.name.trim() };
        return unwrap(
          websiteId
            ? await api.POST('/cms-one/websites/{id}/themes', { params: { path: { id: websiteId } }, body })
            : await api.POST('/cms-one/themes', { body }),
        );
      }}
      saved={(theme) => `Theme ${theme.name} created`}
      invalidate={keys.themes(websiteId)}
      goTo={(theme) => themeUrl(websiteId, theme.id)}
      submitLabel="Create theme"
      onClose={onClose}
    >
      <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
    </CreateForm>
  );
}

function Themes({ websiteId }: { websiteId: string | null }) {
  const open = (t: Theme) => themeUrl(websiteId, t.id);
  return (
    <RecordList<Theme>
      label="Themes"
      records={{ key: keys.themes(websiteId), load: () => themesOf(websiteId) }}
      search={['name']}
      open={open}
      filters={[{ name: 'q', label: 'Name', type: 'text' }]}
      empty="No themes match"
      columns={[
        linkColumn(
          'name',
          'Name',
          open,
          (t) =>
            t.isDefault && (
              <Badge color="green" variant="light">
                Active
              </Badge>
            ),
        ),
        { accessor: 'colors', title: 'Colours', render: (t) => Object.keys(t.colors).length },
        { accessor: 'fonts', title: 'Fonts', render: (t) => Object.keys(t.fonts).length },
        changedColumn(),
      ]}
    />
  );
}

/** `/admin/themes`: the global theme catalog; `/admin/websites/:id/themes`: a website's own. */
export default function ThemeList() {
  const { id } = useParams();
  const can = useCan();
  const websiteId = id ?? null;
  const newTheme = (
    <CreateDialog label="New theme">{(close) => <NewTheme websiteId={websiteId} onClose={close} />}</CreateDialog>
  );
  if (websiteId)
    return (
      <WebsiteFrame section="Themes" actions={() => can('websites:edit') && newTheme}>
        {() => <Themes websiteId={websiteId} />}
      </WebsiteFrame>
    );
  return (
    <>
      <PageHeader
        title="Themes"
        description="The global catalog: colours, fonts and styles any website can use. Each website also has its own."
        actions={can('themes:edit') && newTheme}
      />
      <Themes websiteId={null} />
    </>
  );
}
