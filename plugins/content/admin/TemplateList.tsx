import { Anchor, Button, Group, Modal, Stack, Tabs, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearchParams } from 'react-router';
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
import { editorUrl, type Kit, keys, LIST_MAX, shortDate, type Template } from './content-api.ts';

function NewTemplate({ onClose }: { onClose: () => void }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const form = useForm({
    initialValues: { name: '', path: '' },
    validate: { name: (v) => (v.trim() ? null : 'Name the template') },
  });
  return (
    <form
      onSubmit={form.onSubmit(async (v) => {
        try {
          const t = unwrap(
            await api.POST('/cms-one/templates', { body: { name: v.name.trim(), path: v.path.trim() } }),
          );
          showSaved(`Template ${t.name} created`);
          await client.invalidateQueries({ queryKey: keys.templates });
          onClose();
          await navigate(`/admin/templates/${t.id}`);
        } catch (err) {
          showSaveError(err, form);
        }
      })}
    >
      <Stack>
        <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
        <TextInput
          label="Path"
          description="Unique, starting with /, e.g. /landing/hero"
          required
          {...form.getInputProps('path')}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={form.submitting}>
            Create template
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function NewKit({ onClose }: { onClose: () => void }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const form = useForm({
    initialValues: { name: '' },
    validate: { name: (v) => (v.trim() ? null : 'Name the kit') },
  });
  return (
    <form
      onSubmit={form.onSubmit(async (v) => {
        try {
          const kit = unwrap(await api.POST('/cms-one/kits', { body: { name: v.name.trim() } }));
          showSaved(`Kit ${kit.name} created`);
          await client.invalidateQueries({ queryKey: keys.kits });
          onClose();
          await navigate(`/admin/kits/${kit.id}`);
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
            Create kit
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

const fetchTemplates = async () =>
  unwrap(await api.GET('/cms-one/templates', { params: { query: { limit: LIST_MAX, offset: 0 } } }));
const fetchKits = async () =>
  unwrap(await api.GET('/cms-one/kits', { params: { query: { limit: LIST_MAX, offset: 0 } } }));

/** `/admin/templates` (and `?tab=kits`): whole-page templates and the kits that group them. */
export default function TemplateList() {
  const can = useCan();
  const client = useQueryClient();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const [creating, { open, close }] = useDisclosure();
  const tab = params.get('tab') === 'kits' ? 'kits' : 'templates';
  const canEdit = can('templates:edit');
  return (
    <>
      <PageHeader
        title="Templates"
        description="Whole-page templates editors start a page from, and kits: named sets of templates."
        actions={
          canEdit && (
            <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={open}>
              {tab === 'kits' ? 'New kit' : 'New template'}
            </Button>
          )
        }
      />
      <Tabs value={tab} onChange={(t) => setParams(t === 'kits' ? { tab: t } : {})} keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="templates">Page templates</Tabs.Tab>
          <Tabs.Tab value="kits">Kits</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="templates">
          <ListPage<Template>
            label="Page templates"
            queryKey={[...keys.templates, 'list']}
            rowKey="id"
            defaultSort={{ column: 'name', direction: 'asc' }}
            filters={[{ name: 'q', label: 'Name or path', type: 'text' }]}
            empty={{ title: 'No templates match' }}
            fetchPage={async (q) =>
              pageInBrowser(
                await client.fetchQuery({ queryKey: keys.templates, queryFn: fetchTemplates, staleTime: 5_000 }),
                q,
                { text: ['name', 'path'] },
              )
            }
            onRowClick={(t) => navigate(`/admin/templates/${t.id}`)}
            columns={[
              {
                accessor: 'name',
                title: 'Name',
                sortable: true,
                render: (t) => (
                  <Link to={`/admin/templates/${t.id}`} onClick={(e) => e.stopPropagation()}>
                    {t.name}
                  </Link>
                ),
              },
              { accessor: 'path', title: 'Path', sortable: true },
              { accessor: 'updatedAt', title: 'Changed', sortable: true, render: (t) => shortDate(t.updatedAt) },
              {
                accessor: 'editor',
                title: '',
                render: (t) =>
                  canEdit && (
                    <Anchor
                      href={editorUrl.template(t.id)}
                      aria-label={`Open in editor: ${t.name}`}
                      onClick={(e) => e.stopPropagation()}
                    >
                      Open in editor
                    </Anchor>
                  ),
              },
            ]}
          />
        </Tabs.Panel>
        <Tabs.Panel value="kits">
          <ListPage<Kit & { count: number }>
            label="Kits"
            queryKey={[...keys.kits, 'list']}
            rowKey="id"
            defaultSort={{ column: 'name', direction: 'asc' }}
            filters={[{ name: 'q', label: 'Name', type: 'text' }]}
            empty={{ title: 'No kits match' }}
            fetchPage={async (q) => {
              const kits = await client.fetchQuery({ queryKey: keys.kits, queryFn: fetchKits, staleTime: 5_000 });
              return pageInBrowser(
                kits.map((k) => ({ ...k, count: k.templateIds.length })),
                q,
                { text: ['name'] },
              );
            }}
            onRowClick={(k) => navigate(`/admin/kits/${k.id}`)}
            columns={[
              {
                accessor: 'name',
                title: 'Name',
                sortable: true,
                render: (k) => (
                  <Link to={`/admin/kits/${k.id}`} onClick={(e) => e.stopPropagation()}>
                    {k.name}
                  </Link>
                ),
              },
              { accessor: 'count', title: 'Templates', sortable: true },
              { accessor: 'updatedAt', title: 'Changed', sortable: true, render: (k) => shortDate(k.updatedAt) },
              {
                accessor: 'editor',
                title: '',
                render: (k) =>
                  canEdit && (
                    <Anchor
                      href={editorUrl.kit(k.id)}
                      aria-label={`Open in editor: ${k.name}`}
                      onClick={(e) => e.stopPropagation()}
                    >
                      Open in editor
                    </Anchor>
                  ),
              },
            ]}
          />
        </Tabs.Panel>
      </Tabs>
      <Modal opened={creating} onClose={close} title={tab === 'kits' ? 'New kit' : 'New template'}>
        {tab === 'kits' ? <NewKit onClose={close} /> : <NewTemplate onClose={close} />}
      </Modal>
    </>
  );
}
