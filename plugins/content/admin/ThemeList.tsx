import { Badge, Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
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
import { keys, shortDate, type Theme } from './content-api.ts';
import { WebsiteFrame } from './WebsiteFrame.tsx';

/** Where a theme's screen is: the global catalog's or a website's. */
export const themeUrl = (websiteId: string | null, id: string) =>
  websiteId ? `/admin/websites/${websiteId}/themes/${id}` : `/admin/themes/${id}`;

async function fetchThemes(websiteId: string | null): Promise<Theme[]> {
  return (
    websiteId
      ? unwrap<unknown>(await api.GET('/cms-one/websites/{id}/themes', { params: { path: { id: websiteId } } }))
      : unwrap<unknown>(await api.GET('/cms-one/themes'))
  ) as Theme[];
}

function NewTheme({ websiteId, onClose }: { websiteId: string | null; onClose: () => void }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const form = useForm({
    initialValues: { name: '' },
    validate: { name: (v) => (v.trim() ? null : 'Name the theme') },
  });
  return (
    <form
      onSubmit={form.onSubmit(async (v) => {
        const body = { name: v.name.trim() };
        try {
          const theme = unwrap(
            websiteId
              ? await api.POST('/cms-one/websites/{id}/themes', { params: { path: { id: websiteId } }, body })
              : await api.POST('/cms-one/themes', { body }),
          );
          showSaved(`Theme ${theme.name} created`);
          await client.invalidateQueries({ queryKey: keys.themes(websiteId) });
          onClose();
          await navigate(themeUrl(websiteId, theme.id));
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
            Create theme
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function Themes({ websiteId }: { websiteId: string | null }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  return (
    <ListPage<Theme>
      label="Themes"
      queryKey={[...keys.themes(websiteId), 'list']}
      rowKey="id"
      defaultSort={{ column: 'name', direction: 'asc' }}
      filters={[{ name: 'q', label: 'Name', type: 'text' }]}
      empty={{ title: 'No themes match' }}
      fetchPage={async (q) =>
        pageInBrowser(
          await client.fetchQuery({
            queryKey: keys.themes(websiteId),
            queryFn: () => fetchThemes(websiteId),
            staleTime: 5_000,
          }),
          q,
          { text: ['name'] },
        )
      }
      onRowClick={(t) => navigate(themeUrl(websiteId, t.id))}
      columns={[
        {
          accessor: 'name',
          title: 'Name',
          sortable: true,
          render: (t) => (
            <Group gap="xs">
              <Link to={themeUrl(websiteId, t.id)} onClick={(e) => e.stopPropagation()}>
                {t.name}
              </Link>
              {t.isDefault && (
                <Badge color="green" variant="light">
                  Active
                </Badge>
              )}
            </Group>
          ),
        },
        { accessor: 'colors', title: 'Colours', render: (t) => Object.keys(t.colors).length },
        { accessor: 'fonts', title: 'Fonts', render: (t) => Object.keys(t.fonts).length },
        { accessor: 'updatedAt', title: 'Changed', sortable: true, render: (t) => shortDate(t.updatedAt) },
      ]}
    />
  );
}

function NewButton({ onClick }: { onClick: () => void }) {
  return (
    <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={onClick}>
      New theme
    </Button>
  );
}

/** `/admin/themes`: the global theme catalog; `/admin/websites/:id/themes`: a website's own. */
export default function ThemeList() {
  const { id } = useParams();
  const can = useCan();
  const [creating, { open, close }] = useDisclosure();
  const websiteId = id ?? null;
  const modal = (
    <Modal opened={creating} onClose={close} title="New theme">
      <NewTheme websiteId={websiteId} onClose={close} />
    </Modal>
  );
  if (websiteId)
    return (
      <WebsiteFrame section="Themes" actions={() => can('websites:edit') && <NewButton onClick={open} />}>
        {() => (
          <>
            <Themes websiteId={websiteId} />
            {modal}
          </>
        )}
      </WebsiteFrame>
    );
  return (
    <>
      <PageHeader
        title="Themes"
        description="The global catalog: colours, fonts and styles any website can use. Each website also has its own."
        actions={can('themes:edit') && <NewButton onClick={open} />}
      />
      <Themes websiteId={null} />
      {modal}
    </>
  );
}
