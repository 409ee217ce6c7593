import { Alert, Button, Group, NumberInput, Paper, Stack, Tabs, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import {
  type ApiBody,
  api,
  confirmDestructive,
  PageHeader,
  QueryState,
  showSaved,
  showSaveError,
  TextLink,
  unwrap,
  useCan,
  useRemoveRecord,
  useSaving,
} from '../../admin-ui/app/src/sdk/index.ts';
import { useClasses, useComponents } from './data-api.ts';
import { cleanFields, FieldEditor } from './FieldEditor.tsx';
import { type DataClass, type FieldDef, keys } from './model.ts';
import { WorkflowEditor } from './WorkflowEditor.tsx';

interface Draft {
  name: string;
  label: string;
  fields: FieldDef[];
  retentionDays: number | null;
}

const NEW: Draft = {
  name: '',
  label: '',
  fields: [{ name: 'title', type: 'text', required: true }],
  retentionDays: null,
};

/** The definition form: name, label, fields, retention. Saves with POST (new) or PATCH. */
function DefinitionForm({ cls, canManage }: { cls?: DataClass; canManage: boolean }) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const classes = useClasses();
  const components = useComponents();
  const initial: Draft = cls
    ? { name: cls.name, label: cls.label, fields: cls.fields, retentionDays: cls.retentionDays }
    : NEW;
  const [draft, setDraft] = useState<Draft>(initial);
  const { busy, error, errorOf, run } = useSaving();
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset only when another class (or its saved version) arrives
  useEffect(() => setDraft(initial), [cls]);
  const ro = !canManage;
  const save = () =>
    run(async () => {
      const body: ApiBody<'/data-classes/{id}', 'patch'> = { label: draft.label, fields: cleanFields(draft.fields) };
      // Retention is an administrator's setting: sent only when it changed.
      if ((cls?.retentionDays ?? null) !== draft.retentionDays) body.retentionDays = draft.retentionDays;
      if (cls) {
        const saved = unwrap(await api.PATCH('/data-classes/{id}', { params: { path: { id: cls.id } }, body }));
        client.setQueryData(keys.class(cls.id), saved);
        showSaved(`${saved.label || saved.name} saved`);
      } else {
        const saved = unwrap(await api.POST('/data-classes', { body: { ...body, name: draft.name } }));
        showSaved(`${saved.label || saved.name} created`);
        await navigate(`/admin/data/classes/${saved.id}`, { replace: true });
      }
      await client.invalidateQueries({ queryKey: keys.classes });
    });
  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <Stack>
        <Group grow align="flex-start" wrap="wrap">
          <TextInput
            label="Name"
            description={cls ? 'The name cannot be changed' : 'Used by the API: letters, digits and _'}
            required
            readOnly={ro || Boolean(cls)}
            value={draft.name}
            error={errorOf('name')}
            onChange={(e) => setDraft({ ...draft, name: e.currentTarget.value })}
            miw={220}
          />
          <TextInput
            label="Label"
            readOnly={ro}
            value={draft.label}
            error={errorOf('label')}
            onChange={(e) => setDraft({ ...draft, label: e.currentTarget.value })}
            miw={220}
          />
          <NumberInput
            label="Delete objects after (days)"
            description="Empty keeps them; only administrators may change it"
            readOnly={ro}
            min={1}
            max={36500}
            value={draft.retentionDays ?? ''}
            error={errorOf('retentionDays')}
            onChange={(v) => setDraft({ ...draft, retentionDays: typeof v === 'number' ? v : null })}
            miw={220}
          />
        </Group>
        <Title order={2} size="h4">
          Fields
        </Title>
        <Text size="sm" c="dimmed">
          Once objects exist, fields can be added but not removed or retyped. “Translated” fields hold a value per
          language; the others are shared by every language of an object.
        </Text>
        <FieldEditor
          fields={draft.fields}
          onChange={(fields) => setDraft({ ...draft, fields })}
          classNames={(classes.data ?? []).map((c) => c.name)}
          componentNames={(components.data ?? []).map((c) => c.name)}
          readOnly={ro}
          error={error?.field.startsWith('fields.') ? error : undefined}
        />
        {error?.field === 'fields' && (
          <Alert color="red" role="alert">
            {error.message}
          </Alert>
        )}
        {canManage && (
          <Group>
            <Button type="submit" loading={busy}>
              {cls ? 'Save the class' : 'Create the class'}
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}

/** Emptying and deleting, each saying exactly what it removes. */
function DangerZone({ cls }: { cls: DataClass }) {
  const client = useQueryClient();
  const name = cls.label || cls.name;
  const count = useQuery({
    queryKey: [...keys.class(cls.id), 'count'],
    queryFn: async () =>
      unwrap(await api.GET('/data-classes/{id}/object-count', { params: { path: { id: cls.id } } })).count,
  });
  const objects = count.data ?? 0;
  const empty = async () => {
    const ok = await confirmDestructive({
      title: `Empty ${name}?`,
      removes: `all ${objects} objects of ${name} (every language, their preview links and unique values). The class and its fields stay.`,
      confirmLabel: `Delete ${objects} objects`,
    });
    if (!ok) return;
    try {
      const { deleted } = unwrap(
        await api.POST('/data-classes/{id}/empty', { params: { path: { id: cls.id } }, body: { confirm: cls.name } }),
      );
      showSaved(`${deleted} objects deleted`);
      await client.invalidateQueries({ queryKey: ['data'] });
    } catch (err) {
      showSaveError(err);
    }
  };
  const remove = useRemoveRecord<DataClass>({
    confirm: (c) => ({
      title: `Delete the class ${name}?`,
      removes: `the class ${name} with its ${c.fields.length} field definitions and its workflow.`,
      confirmLabel: 'Delete the class',
    }),
    run: async (c) => unwrap(await api.DELETE('/data-classes/{id}', { params: { path: { id: c.id } } })),
    saved: () => `${name} deleted`,
    invalidate: keys.classes,
    goTo: '/admin/data/classes',
  });
  return (
    <Paper withBorder p="md" mt="xl" style={{ borderColor: 'var(--mantine-color-red-4)' }}>
      <Title order={2} size="h4" mb="xs">
        Danger zone
      </Title>
      <Stack gap="sm" align="flex-start">
        <Text size="sm">
          {count.isPending ? 'Counting objects…' : `${objects} objects (all languages) belong to this class.`} A class
          with objects cannot be deleted: empty it first.
        </Text>
        <Group>
          <Button color="red" variant="outline" onClick={empty} disabled={objects === 0}>
            Empty the class
          </Button>
          <Button color="red" onClick={() => void remove(cls)} disabled={objects > 0}>
            Delete the class
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

/** `/admin/data/classes/:id` (and `/new`): the definition, its workflow and its danger zone. */
export default function ClassEdit() {
  const { id = 'new' } = useParams();
  const can = useCan();
  const canManage = can('data_classes:manage');
  const [params, setParams] = useSearchParams();
  const cls = useQuery({
    queryKey: keys.class(id),
    enabled: id !== 'new',
    queryFn: async () => unwrap(await api.GET('/data-classes/{id}', { params: { path: { id } } })),
  });
  if (id === 'new')
    return (
      <>
        <PageHeader title="New class" description={<TextLink to="/admin/data/classes">Back to the classes</TextLink>} />
        <DefinitionForm canManage={canManage} />
      </>
    );
  const tab = params.get('tab') ?? 'definition';
  return (
    <QueryState query={cls}>
      {(c) => (
        <>
          <PageHeader
            title={c.label || c.name}
            description={
              <>
                Class <code>{c.name}</code> ·{' '}
                <TextLink to={`/admin/data/objects?class=${encodeURIComponent(c.name)}`}>Its objects</TextLink>
              </>
            }
          />
          <Tabs value={tab} onChange={(t) => setParams(t && t !== 'definition' ? { tab: t } : {})} keepMounted={false}>
            <Tabs.List mb="md">
              <Tabs.Tab value="definition">Definition</Tabs.Tab>
              <Tabs.Tab value="workflow">Workflow</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="definition">
              <DefinitionForm cls={c} canManage={canManage} />
              {canManage && <DangerZone cls={c} />}
            </Tabs.Panel>
            <Tabs.Panel value="workflow">
              <WorkflowEditor cls={c} canManage={canManage} />
            </Tabs.Panel>
          </Tabs>
        </>
      )}
    </QueryState>
  );
}
