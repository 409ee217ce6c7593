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

/** `/admin/kits/:id`: a kit's templates, one more appended at a time, and its deletion. */
export default function KitEdit() {
  const { id = '' } = useParams();
  const can = useCan();
  const client = useQueryClient();
  const navigate = useNavigate();
  const templates = useTemplates();
  const [adding, setAdding] = useState<string | null>(null);
  const kit = useQuery({
    queryKey: [...keys.kits, id],
    queryFn: async () => unwrap(await api.GET('/cms-one/kits/{id}', { params: { path: { id } } })),
  });
  const byId = new Map((templates.data ?? []).map((t) => [t.id, t]));
  const append = async (k: Kit) => {
    if (!adding) return;
    try {
      const saved = unwrap(
        await api.POST('/cms-one/kits/{id}/templates', {
          params: { path: { id: k.id } },
          body: { templateId: adding },
        }),
      );
      client.setQueryData([...keys.kits, id], saved);
      setAdding(null);
      showSaved(`${byId.get(adding)?.name ?? 'Template'} added to ${k.name}`);
      await client.invalidateQueries({ queryKey: keys.kits, exact: true });
    } catch (err) {
      showSaveError(err);
    }
  };
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
            {can('templates:edit') && (
              <Group align="flex-end" mt="md" wrap="wrap">
                <Select
                  label="Template to add"
                  data={(templates.data ?? []).map((t) => ({ value: t.id, label: `${t.name} (${t.path})` }))}
                  value={adding}
                  onChange={setAdding}
                  searchable
                  miw={260}
                />
                <Button onClick={() => append(k)} disabled={!adding}>
                  Add to the kit
                </Button>
              </Group>
            )}
          </Paper>
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
