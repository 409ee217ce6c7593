import { Anchor, Button, Group, Paper, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import {
  api,
  confirmDestructive,
  PageHeader,
  QueryState,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { ContentDraft } from './ContentDraft.tsx';
import { editorUrl, keys, shortDate, type Template, useKits } from './content-api.ts';
import { treeText } from './tree-input.tsx';
import { NameField, TreeDocumentForm } from './TreeDocumentForm.tsx';

function TemplateForm({ template, canEdit }: { template: Template; canEdit: boolean }) {
  const client = useQueryClient();
  return (
    <TreeDocumentForm
      record={template}
      what="template"
      canEdit={canEdit}
      valuesOf={(t: Template) => ({ name: t.name, path: t.path, content: treeText(t.content) })}
      trees={[{ name: 'content', label: 'Content (node tree)' }]}
      write={(v, trees, ifMatch) =>
        api.PATCH('/cms-one/templates/{id}', {
          params: { path: { id: template.id }, header: { 'if-match': ifMatch } },
          body: { name: v.name.trim(), path: v.path.trim(), content: trees.content },
        })
      }
      read={() => api.GET('/cms-one/templates/{id}', { params: { path: { id: template.id } } })}
      store={(t) => client.setQueryData([...keys.templates, template.id], t)}
      onSaved={() => client.invalidateQueries({ queryKey: keys.templates, exact: true })}
      fields={({ values, set, errors, readOnly }) => (
        <Group grow preventGrowOverflow={false} align="flex-start" wrap="wrap">
          <NameField values={values} set={set} errors={errors} readOnly={readOnly} />
          <TextInput
            label="Path"
            description="Unique among the templates, starting with /"
            required
            readOnly={readOnly}
            value={values.path}
            error={errors.path}
            onChange={(e) => set('path', e.currentTarget.value)}
            miw={220}
          />
        </Group>
      )}
    />
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
          <ContentDraft
            owner={{ ownerType: 'template', id: t.id }}
            draft={t.draft}
            canEdit={can('templates:edit')}
            onDone={() => client.invalidateQueries({ queryKey: keys.templates })}
          />
          <Paper withBorder p="md" mt={t.draft ? 'md' : undefined}>
            {/* A publish or a discard changes what the form starts from: it starts again. */}
            <TemplateForm key={`${t.id}:${t.draft ? 'draft' : 'live'}`} template={t} canEdit={can('templates:edit')} />
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
