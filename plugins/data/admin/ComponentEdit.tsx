import { Button, Group, Stack, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import {
  api,
  PageHeader,
  QueryState,
  showSaved,
  TextLink,
  unwrap,
  useCan,
  useRemoveRecord,
  useSaving,
} from '../../admin-ui/app/src/sdk/index.ts';
import { useClasses } from './data-api.ts';
import { cleanFields, FieldEditor } from './FieldEditor.tsx';
import { type ComponentUsage, type DataComponent, type FieldDef, keys } from './model.ts';

function ComponentForm({ component }: { component?: DataComponent }) {
  const can = useCan();
  const ro = !can('data_classes:manage');
  const navigate = useNavigate();
  const client = useQueryClient();
  const classes = useClasses();
  const [name, setName] = useState(component?.name ?? '');
  const [label, setLabel] = useState(component?.label ?? '');
  const [fields, setFields] = useState<FieldDef[]>(component?.fields ?? []);
  const { busy, error, errorOf, run } = useSaving();
  useEffect(() => {
    setName(component?.name ?? '');
    setLabel(component?.label ?? '');
    setFields(component?.fields ?? []);
  }, [component]);
  const save = () =>
    run(async () => {
      const body = { name, label, fields: cleanFields(fields) };
      const saved = component
        ? unwrap(await api.PATCH('/data-components/{id}', { params: { path: { id: component.id } }, body }))
        : unwrap(await api.POST('/data-components', { body }));
      showSaved(`${saved.label || saved.name} saved`);
      await client.invalidateQueries({ queryKey: keys.components });
      if (!component) await navigate(`/admin/data/components/${saved.id}`, { replace: true });
    });
  const removeRecord = useRemoveRecord<{ c: DataComponent; usage: ComponentUsage }>({
    confirm: ({ c, usage }) => {
      const used = usage.classes.map((u) => u.name).join(', ');
      return {
        title: `Delete the component ${c.label || c.name}?`,
        removes: used
          ? `nothing yet: the classes ${used} still use it (${usage.objectCount} objects), so the server will refuse. Remove those fields first.`
          : `the component ${c.name} and its ${c.fields.length} field definitions; no class uses it.`,
        confirmLabel: 'Delete the component',
      };
    },
    run: async ({ c }) => unwrap(await api.DELETE('/data-components/{id}', { params: { path: { id: c.id } } })),
    saved: () => 'Component deleted',
    invalidate: keys.components,
    goTo: '/admin/data/components',
  });
  // The usage is read when the button is pressed, so the dialog says what is true now.
  const remove = async () => {
    if (!component) return;
    const usage = unwrap(await api.GET('/data-components/{id}/usage', { params: { path: { id: component.id } } }));
    await removeRecord({ c: component, usage });
  };
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
            required
            readOnly={ro}
            value={name}
            error={errorOf('name')}
            onChange={(e) => setName(e.currentTarget.value)}
            miw={220}
          />
          <TextInput
            label="Label"
            readOnly={ro}
            value={label}
            onChange={(e) => setLabel(e.currentTarget.value)}
            miw={220}
          />
        </Group>
        <Title order={2} size="h4">
          Fields
        </Title>
        <FieldEditor
          fields={fields}
          onChange={setFields}
          classNames={(classes.data ?? []).map((c) => c.name)}
          componentNames={[]}
          inComponent
          readOnly={ro}
          error={error?.field.startsWith('fields.') ? error : undefined}
        />
        {!ro && (
          <Group>
            <Button type="submit" loading={busy}>
              {component ? 'Save the component' : 'Create the component'}
            </Button>
            {component && (
              <Button color="red" variant="outline" onClick={remove}>
                Delete the component
              </Button>
            )}
          </Group>
        )}
      </Stack>
    </form>
  );
}

/** `/admin/data/components/:id` (and `/new`). */
export default function ComponentEdit() {
  const { id = 'new' } = useParams();
  const component = useQuery({
    queryKey: [...keys.components, id],
    enabled: id !== 'new',
    queryFn: async () => unwrap(await api.GET('/data-components/{id}', { params: { path: { id } } })),
  });
  const back = <TextLink to="/admin/data/components">Back to the components</TextLink>;
  if (id === 'new')
    return (
      <>
        <PageHeader title="New component" description={back} />
        <ComponentForm />
      </>
    );
  return (
    <QueryState query={component}>
      {(c) => (
        <>
          <PageHeader title={c.label || c.name} description={back} />
          <ComponentForm component={c} />
        </>
      )}
    </QueryState>
  );
}
