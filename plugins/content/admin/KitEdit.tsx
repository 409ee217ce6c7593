import { Anchor, Button, Group, List, Paper, Select, Stack, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  api,
  confirmDestructive,
  EmptyState,
  PageHeader,
  QueryState,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { editorUrl, type Kit, keys, useTemplates } from './content-api.ts';
import { ConflictNotice, useStoredVersion } from './edit-conflict.tsx';

/** Nothing of a kit is edited in a form here: an append only needs the tag of the list shown. */
const noValues = () => null;
const keepValues = () => {};

/**
 * The kit's templates and the append of one more. The append sends `If-Match` with the version of
 * the list shown: a kit changed elsewhere since is not changed, the screen says so and offers the
 * stored list.
 */
function KitTemplates({ kit: k, canEdit }: { kit: Kit; canEdit: boolean }) {
  const client = useQueryClient();
  const templates = useTemplates();
  const [adding, setAdding] = useState<string | null>(null);
  const stored = useStoredVersion({
    record: k,
    valuesOf: noValues,
    values: null,
    setValues: keepValues,
    read: () => api.GET('/cms-one/kits/{id}', { params: { path: { id: k.id } } }),
    store: (saved) => client.setQueryData([...keys.kits, k.id], saved),
  });
  const byId = new Map((templates.data ?? []).map((t) => [t.id, t]));
  const append = async () => {
    if (!adding) return;
    try {
      const saved = await stored.save((ifMatch) =>
        api.POST('/cms-one/kits/{id}/templates', {
          params: { path: { id: k.id }, header: { 'if-match': ifMatch } },
          body: { templateId: adding },
        }),
      );
      if (!saved) return;
      setAdding(null);
      showSaved(`${byId.get(adding)?.name ?? 'Template'} added to ${k.name}`);
      await client.invalidateQueries({ queryKey: keys.kits, exact: true });
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <Paper withBorder p="md">
      <Title order={2} size="h4" mb="sm">
        Templates of the kit
      </Title>
      {k.templateIds.length === 0 ? (
        <EmptyState title="No templates in this kit yet" />
      ) : (
        <List type="ordered" mb="md">
          {k.templateIds.map((t, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a kit may list a template twice; its place is its identity
            <List.Item key={`${t}-${i}`}>
              {byId.has(t) ? (
                <Anchor component={Link} to={`/admin/templates/${t}`}>
                  {byId.get(t)?.name}
                </Anchor>
              ) : (
                <Text span c="dimmed">
                  A deleted template
                </Text>
              )}
            </List.Item>
          ))}
        </List>
      )}
      {canEdit && (
        <Stack gap="sm" mt="md">
          <Group align="flex-end" wrap="wrap">
            <Select
              label="Template to add"
              data={(templates.data ?? []).map((t) => ({ value: t.id, label: `${t.name} (${t.path})` }))}
              value={adding}
              onChange={setAdding}
              searchable
              miw={260}
            />
            <Button onClick={append} disabled={!adding} loading={stored.busy}>
              Add to the kit
            </Button>
          </Group>
          <ConflictNotice what="kit" state={stored} />
        </Stack>
      )}
    </Paper>
  );
}

/** `/admin/kits/:id`: a kit's templates, one more appended at a time, and its deletion. */
export default function KitEdit() {
  const { id = '' } = useParams();
  const can = useCan();
  const client = useQueryClient();
  const navigate = useNavigate();
  const kit = useQuery({
    queryKey: [...keys.kits, id],
    queryFn: async () => unwrap(await api.GET('/cms-one/kits/{id}', { params: { path: { id } } })),
  });
  const remove = async (k: Kit) => {
    const ok = await confirmDestructive({
      title: `Delete the kit ${k.name}?`,
      removes: `the kit ${k.name}. Its ${k.templateIds.length} templates stay.`,
      confirmLabel: 'Delete the kit',
    });
    if (!ok) return;
    try {
      unwrap(await api.DELETE('/cms-one/kits/{id}', { params: { path: { id: k.id } } }));
      showSaved(`${k.name} deleted`);
      await client.invalidateQueries({ queryKey: keys.kits });
      await navigate('/admin/templates?tab=kits');
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <QueryState query={kit}>
      {(k) => (
        <>
          <PageHeader
            title={k.name}
            description={
              <Anchor underline="always" component={Link} to="/admin/templates?tab=kits">
                All kits
              </Anchor>
            }
            actions={
              can('templates:edit') && (
                <Button component="a" href={editorUrl.kit(k.id)} variant="light">
                  Open in editor
                </Button>
              )
            }
          />
          <KitTemplates key={k.id} kit={k} canEdit={can('templates:edit')} />
          {can('templates:delete') && (
            <Paper withBorder p="md" mt="xl" style={{ borderColor: 'var(--mantine-color-red-4)' }}>
              <Stack gap="sm" align="flex-start">
                <Title order={2} size="h4">
                  Delete the kit
                </Title>
                <Button color="red" onClick={() => remove(k)}>
                  Delete the kit
                </Button>
              </Stack>
            </Paper>
          )}
        </>
      )}
    </QueryState>
  );
}
