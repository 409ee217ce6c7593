import { Anchor, Button, Group, Stack, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  ApiError,
  api,
  confirmDestructive,
  PageHeader,
  QueryState,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { useClasses } from './data-api.ts';
import { cleanFields, FieldEditor } from './FieldEditor.tsx';
import { type DataComponent, type FieldDef, keys } from './model.ts';

function ComponentForm({ component }: { component?: DataComponent }) {
  const can = useCan();
  const ro = !can('data_classes:manage');
  const navigate = useNavigate();
  const client = useQueryClient();
  const classes = useClasses();
  const [name, setName] = useState(component?.name ?? '');
  const [label, setLabel] = useState(component?.label ?? '');
  const [fields, setFields] = useState<FieldDef[]>(component?.fields ?? []);
  const [error, setError] = useState<{ field: string; message: string }>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setName(component?.name ?? '');
    setLabel(component?.label ?? '');
    setFields(component?.fields ?? []);
  }, [component]);
  const save = async () => {
    setBusy(true);
    setError(undefined);
    const body = { name, label, fields: cleanFields(fields) };
    try {
      const saved = (
        component
          ? unwrap<unknown>(await api.PATCH('/data-components/{id}', { params: { path: { id: component.id } }, body }))
          : unwrap<unknown>(await api.POST('/data-components', { body }))
      ) as DataComponent;
      showSaved(`${saved.label || saved.name} saved`);
      await client.invalidateQueries({ queryKey: keys.components });
      if (!component) await navigate(`/admin/data/components/${saved.id}`, { replace: true });
    } catch (err) {
      if (err instanceof ApiError && err.field) setError({ field: err.field, message: err.message });
      showSaveError(err);
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    if (!component) return;
    const usage = unwrap<unknown>(
      await api.GET('/data-components/{id}/usage', { params: { path: { id: component.id } } }),
    ) as {
      classes: { name: string }[];
      objectCount: number;
    };
    const used = usage.classes.map((c) => c.name).join(', ');
    const ok = await confirmDestructive({
      title: `Delete the component ${component.label || component.name}?`,
      removes: used
        ? `nothing yet: the classes ${used} still use it (${usage.objectCount} objects), so the server will refuse. Remove those fields first.`
        : `the component ${component.name} and its ${component.fields.length} field definitions; no class uses it.`,
      confirmLabel: 'Delete the component',
    });
    if (!ok) return;
    try {
      unwrap<unknown>(await api.DELETE('/data-components/{id}', { params: { path: { id: component.id } } }));
      showSaved('Component deleted');
      await client.invalidateQueries({ queryKey: keys.components });
      await navigate('/admin/data/components');
    } catch (err) {
      showSaveError(err);
    }
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
            error={error?.field === 'name' ? error.message : undefined}
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
    queryFn: async () =>
      unwrap<unknown>(await api.GET('/data-components/{id}', { params: { path: { id } } })) as DataComponent,
  });
  const back = (
    <Anchor underline="always" component={Link} to="/admin/data/components">
      Back to the components
    </Anchor>
  );
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
