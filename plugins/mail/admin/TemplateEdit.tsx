import {
  Anchor,
  Button,
  Code,
  Group,
  JsonInput,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  type ApiAnswer,
  api,
  confirmDestructive,
  PageHeader,
  QueryState,
  showSaved,
  showSaveError,
  unwrap,
} from '../../admin-ui/app/src/sdk/index.ts';
import { HtmlPreview } from './HtmlPreview.tsx';
import { KEYS, type MailTemplate } from './model.ts';

const VARIABLE = /\{\{\s*([a-zA-Z][a-zA-Z0-9_]{0,63})\s*\}\}/g;

/** The `{{names}}` a template uses, in order of first use. */
function variablesOf(...parts: string[]): string[] {
  const names = new Set<string>();
  for (const part of parts) for (const m of part.matchAll(VARIABLE)) names.add(m[1]!);
  return [...names];
}

type Rendered = ApiAnswer<'/mail-templates/{id}/render', 'post'>;

/** Fills the template's variables with sample values and shows the mail as the renderer makes it. */
function Preview({ template, names }: { template: MailTemplate; names: string[] }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [rendered, setRendered] = useState<Rendered>();
  const [busy, setBusy] = useState(false);
  const render = async () => {
    setBusy(true);
    try {
      const variables = Object.fromEntries(names.map((n) => [n, values[n] ?? '']));
      setRendered(
        unwrap(
          await api.POST('/mail-templates/{id}/render', { params: { path: { id: template.id } }, body: { variables } }),
        ),
      );
    } catch (err) {
      showSaveError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Paper withBorder p="lg">
      <Stack>
        <Title order={2} size="h4">
          Preview
        </Title>
        <Text size="sm" c="dimmed">
          The saved template with these values, through the same renderer as a real mail (values are escaped).
        </Text>
        {names.length > 0 && (
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            {names.map((n) => (
              <TextInput
                key={n}
                label={`Value of ${n}`}
                value={values[n] ?? ''}
                onChange={(e) => setValues({ ...values, [n]: e.currentTarget.value })}
              />
            ))}
          </SimpleGrid>
        )}
        <Group>
          <Button variant="light" onClick={() => void render()} loading={busy}>
            Render preview
          </Button>
        </Group>
        {rendered && (
          <Stack gap="xs" aria-label="Rendered mail" role="region">
            <Text size="sm">
              <strong>Subject:</strong> {rendered.subject}
            </Text>
            {rendered.html && <HtmlPreview html={rendered.html} title="Preview of the HTML part" />}
            <Text size="sm" fw={600}>
              Text part
            </Text>
            <Code block style={{ whiteSpace: 'pre-wrap' }}>
              {rendered.text}
            </Code>
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}

function Editor({ template }: { template: MailTemplate }) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const form = useForm({
    initialValues: {
      key: template.key,
      name: template.name,
      subject: template.subject,
      text: template.text,
      html: template.html ? JSON.stringify(template.html, null, 2) : '',
    },
    validate: {
      name: (v) => (v.trim() ? null : 'A name for the list'),
      subject: (v) => (v.trim() ? null : 'The subject line'),
      html: (v) => {
        if (!v.trim()) return null;
        try {
          const tree = JSON.parse(v) as unknown;
          return tree && typeof tree === 'object' && !Array.isArray(tree)
            ? null
            : 'One node object, as { "type": "div", … }';
        } catch {
          return 'Not valid JSON';
        }
      },
    },
  });
  const remove = async () => {
    const ok = await confirmDestructive({
      title: `Delete the template ${template.name}?`,
      removes: template.builtIn
        ? `the template ${template.key}. The product then sends its own built-in text for it.`
        : `the template ${template.key}. Mails that name it are sent without a template.`,
      confirmLabel: 'Delete template',
    });
    if (!ok) return;
    try {
      unwrap(await api.DELETE('/mail-templates/{id}', { params: { path: { id: template.id } } }));
      showSaved('Template deleted');
      await client.invalidateQueries({ queryKey: KEYS.templates });
      await navigate('/admin/mail/templates');
    } catch (err) {
      showSaveError(err);
    }
  };
  const v = form.values;
  const names = variablesOf(template.subject, template.text, JSON.stringify(template.html ?? ''));
  return (
    <Stack maw={960}>
      <PageHeader
        title={template.name}
        description={
          <Anchor component={Link} to="/admin/mail/templates" size="sm">
            Back to the templates
          </Anchor>
        }
        actions={
          <Button color="red" variant="light" onClick={() => void remove()}>
            Delete
          </Button>
        }
      />
      <form
        noValidate
        onSubmit={form.onSubmit(async (values) => {
          try {
            unwrap(
              await api.PATCH('/mail-templates/{id}', {
                params: { path: { id: template.id } },
                body: {
                  key: values.key,
                  name: values.name.trim(),
                  subject: values.subject,
                  text: values.text,
                  html: values.html.trim() ? (JSON.parse(values.html) as Record<string, never>) : null,
                },
              }),
            );
            showSaved('Template saved');
            await client.invalidateQueries({ queryKey: KEYS.templates });
          } catch (err) {
            showSaveError(err, form);
          }
        })}
      >
        <Paper withBorder p="lg">
          <Stack>
            <Group grow align="flex-start" wrap="wrap">
              <TextInput label="Name" required miw={220} {...form.getInputProps('name')} />
              <TextInput
                label="Key"
                description={template.builtIn ? 'The product sends this template by its key' : undefined}
                required
                miw={220}
                disabled={template.builtIn}
                {...form.getInputProps('key')}
              />
            </Group>
            <TextInput
              label="Subject"
              description="{{variable}} is filled in when the mail is sent"
              required
              {...form.getInputProps('subject')}
            />
            <Textarea label="Text part" autosize minRows={6} maxRows={20} {...form.getInputProps('text')} />
            <JsonInput
              label="HTML part (content node tree)"
              description="The tree the snippet editor stores, rendered to an e-mail document; empty: text only"
              autosize
              minRows={6}
              maxRows={24}
              formatOnBlur
              {...form.getInputProps('html')}
            />
            <Text size="xs" c="dimmed">
              Variables of this template: {variablesOf(v.subject, v.text, v.html).join(', ') || 'none'}.
            </Text>
            <Group>
              <Button type="submit" loading={form.submitting} disabled={!form.isDirty()}>
                Save template
              </Button>
            </Group>
          </Stack>
        </Paper>
      </form>
      <Preview key={template.updatedAt} template={template} names={names} />
    </Stack>
  );
}

/** `/admin/mail/templates/:id`: edit a template, preview it through the renderer, delete it. */
export default function TemplateEdit() {
  const { id = '' } = useParams();
  const template = useQuery({
    queryKey: KEYS.template(id),
    queryFn: async () => unwrap(await api.GET('/mail-templates/{id}', { params: { path: { id } } })),
  });
  return <QueryState query={template}>{(t) => <Editor key={t.updatedAt} template={t} />}</QueryState>;
}
