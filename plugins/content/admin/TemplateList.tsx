import { Tabs, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useSearchParams } from 'react-router';
import {
  api,
  CreateDialog,
  CreateForm,
  PageHeader,
  PathInput,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { allKits, allTemplates, editorUrl, type Kit, keys, type Template } from './content-api.ts';
import { changedColumn, editorColumn, linkColumn, RecordList } from './RecordList.tsx';

const templateUrl = (t: Pick<Template, 'id'>) => `/admin/templates/${t.id}`;
const kitUrl = (k: Pick<Kit, 'id'>) => `/admin/kits/${k.id}`;

function NewTemplate({ onClose }: { onClose: () => void }) {
  const form = useForm({
    initialValues: { name: '', path: '' },
    validate: { name: (v) => (v.trim() ? null : 'Name the template') },
  });
  return (
    <CreateForm
      form={form}
      create={async (v) =>
        unwrap(await api.POST('/cms-one/templates', { body: { name: v.name.trim(), path: v.path.trim() } }))
      }
      saved={(t) => `Template ${t.name} created`}
      invalidate={keys.templates}
      goTo={templateUrl}
      submitLabel="Create template"
      onClose={onClose}
    >
      <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
      <PathInput
        label="Path"
        description="Unique, starting with /, e.g. /landing/hero"
        required
        {...form.getInputProps('path')}
      />
    </CreateForm>
  );
}

function NewKit({ onClose }: { onClose: () => void }) {
  const form = useForm({
    initialValues: { name: '' },
    validate: { name: (v) => (v.trim() ? null : 'Name the kit') },
  });
  return (
    <CreateForm
      form={form}
      create={async (v) => unwrap(await api.POST('/cms-one/kits', { body: { name: v.name.trim() } }))}
      saved={(kit) => `Kit ${kit.name} created`}
      invalidate={keys.kits}
      goTo={kitUrl}
      submitLabel="Create kit"
      onClose={onClose}
    >
      <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
    </CreateForm>
  );
}

/** `/admin/templates` (and `?tab=kits`): whole-page templates and the kits that group them. */
export default function TemplateList() {
  const can = useCan();
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'kits' ? 'kits' : 'templates';
  const canEdit = can('templates:edit');
  return (
    <>
      <PageHeader
        title="Templates"
        description="Whole-page templates editors start a page from, and kits: named sets of templates."
        actions={
          canEdit && (
            <CreateDialog label={tab === 'kits' ? 'New kit' : 'New template'}>
              {(close) => (tab === 'kits' ? <NewKit onClose={close} /> : <NewTemplate onClose={close} />)}
            </CreateDialog>
          )
        }
      />
      <Tabs value={tab} onChange={(t) => setParams(t === 'kits' ? { tab: t } : {})} keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="templates">Page templates</Tabs.Tab>
          <Tabs.Tab value="kits">Kits</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="templates">
          <RecordList<Template>
            label="Page templates"
            records={{ key: keys.templates, load: allTemplates }}
            search={['name', 'path']}
            open={templateUrl}
            filters={[{ name: 'q', label: 'Name or path', type: 'text' }]}
            empty="No templates match"
            columns={[
              linkColumn<Template>('name', 'Name', templateUrl),
              { accessor: 'path', title: 'Path', sortable: true },
              changedColumn(),
              editorColumn(
                canEdit,
                (t) => editorUrl.template(t.id),
                (t) => t.name,
              ),
            ]}
          />
        </Tabs.Panel>
        <Tabs.Panel value="kits">
          <RecordList<Kit, Kit & { count: number }>
            label="Kits"
            records={{ key: keys.kits, load: allKits }}
            rows={(kits) => kits.map((k) => ({ ...k, count: k.templateIds.length }))}
            search={['name']}
            open={kitUrl}
            filters={[{ name: 'q', label: 'Name', type: 'text' }]}
            empty="No kits match"
            columns={[
              linkColumn<Kit>('name', 'Name', kitUrl),
              { accessor: 'count', title: 'Templates', sortable: true },
              changedColumn(),
              editorColumn(
                canEdit,
                (k) => editorUrl.kit(k.id),
                (k) => k.name,
              ),
            ]}
          />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
