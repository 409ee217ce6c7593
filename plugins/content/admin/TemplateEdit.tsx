import { Anchor, Button, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  api,
  ApiError,
  confirmDestructive,
  PageHeader,
  QueryState,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { editorUrl, keys, shortDate, type Template, useKits } from './content-api.ts';
import { parseTree, TreeInput, treeText } from './tree-input.tsx';

function TemplateForm({ template, canEdit }: { template: Template; canEdit: boolean }) {
  const client = useQueryClient();
  const [name, setName] = useState(template.name);
  const [path, setPath] = useState(template.path);
  const [content, setContent] = useState(treeText(template.content));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const save = async () => {
    const tree = parseTree(content);
    if (tree.error) return setErrors({ content: tree.error });
    setErrors({});
    setBusy(true);
    try {
      const saved = unwrap(
        await api.PATCH('/cms-one/templates/{id}', {
          params: { path: { id: template.id } },
          body: { name: name.trim(), path: path.trim(), content: tree.value },
        }),
      );
      client.setQueryData([...keys.templates, template.id], saved);
      await client.invalidateQueries({ queryKey: keys.templates });
      showSaved(`${saved.name} saved`);
    } catch (err) {
      if (err instanceof ApiError && err.field) {
        const field = err.field.split('.')[0];
        setErrors({ [field === 'name' || field === 'path' ? field : 'content']: err.message });
      }
      showSaveError(err);
    } finally {
      setBusy(false);
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
        <Group grow preventGrowOverflow={false} align="flex-start" wrap="wrap">
          <TextInput
            label="Name"
            required
            readOnly={!canEdit}
            value={name}
            error={errors.name}
            onChange={(e) => setName(e.currentTarget.value)}
            miw={220}
          />
          <TextInput
            label="Path"
            description="Unique among the templates, starting with /"
            required
            readOnly={!canEdit}
            value={path}
            error={errors.path}
            onChange={(e) => setPath(e.currentTarget.value)}
            miw={220}
          />
        </Group>
        <TreeInput
          label="Content (node tree)"
          value={content}
          error={errors.content}
          readOnly={!canEdit}
          onChange={setContent}
        />
        {canEdit && (
          <Group>
            <Button type="submit" loading={busy}>
              Save the template
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}

/** `/admin/templates/:id`: a whole-page template's name, path and content. */
export default function TemplateEdit() {
  const { id = '' } = useParams();
  const can = useCan();
  const client = useQueryClient();
  const navigate = useNavigate();
  const kits = useKits();
  const template = useQuery({
    queryKey: [...keys.templates, id],
    queryFn: async () => unwrap(await api.GET('/cms-one/templates/{id}', { params: { path: { id } } })),
  });
  const remove = async (t: Template) => {
    const inKits = (kits.data ?? []).filter((k) => k.templateIds.includes(t.id)).map((k) => k.name);
    const ok = await confirmDestructive({
      title: `Delete the template ${t.name}?`,
      removes: `the template ${t.name} (${t.path}) with its content${
        inKits.length ? `; the kits ${inKits.join(', ')} no longer offer it` : ''
      }. Pages made from it stay.`,
      confirmLabel: 'Delete the template',
    });
    if (!ok) return;
    try {
      unwrap(await api.DELETE('/cms-one/templates/{id}', { params: { path: { id: t.id } } }));
      showSaved(`${t.name} deleted`);
      await client.invalidateQueries({ queryKey: keys.templates });
      await navigate('/admin/templates');
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <QueryState query={template}>
      {(t) => (
        <>
          <PageHeader
            title={t.name}
            description={
              <>
                <code>{t.path}</code> · changed {shortDate(t.updatedAt)} ·{' '}
                <Anchor underline="always" component={Link} to="/admin/templates">
                  All templates
                </Anchor>
              </>
            }
            actions={
              can('templates:edit') && (
                <Button component="a" href={editorUrl.template(t.id)} variant="light">
                  Open in editor
                </Button>
              )
            }
          />
          <Paper withBorder p="md">
            <TemplateForm key={t.updatedAt} template={t} canEdit={can('templates:edit')} />
          </Paper>
          {can('templates:delete') && (
            <Paper withBorder p="md" mt="xl" style={{ borderColor: 'var(--mantine-color-red-4)' }}>
              <Title order={2} size="h4" mb="xs">
                Delete the template
              </Title>
              <Text size="sm" mb="sm">
                Pages made from the template keep their own copy of its content.
              </Text>
              <Button color="red" onClick={() => remove(t)}>
                Delete the template
              </Button>
            </Paper>
          )}
        </>
      )}
    </QueryState>
  );
}
